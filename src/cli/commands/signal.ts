import { isUtf8 } from 'node:buffer';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { InvalidInputError } from '../../core/errors.js';
import { readFileBounded, type BoundedRead } from '../../infra/fs/read-file-bounded.js';
import { META } from '../../core/schema/common.js';
import { MAX_SIGNAL_BYTES, SIGNAL_TYPES } from '../../core/schema/signal.js';
import { MAX_TIMER_MS } from '../../core/schema/duration.js';
import { acknowledgeAll, acknowledgeSignal } from '../../engine/messaging/acknowledge-signals.js';
import { DELIVERY_STATES } from '../../core/schema/delivery.js';
import { archiveSignals } from '../../engine/delivery/archive-signals.js';
import { markSignalsRead } from '../../engine/delivery/read-marks.js';
import { showSignal, type SignalReport } from '../../engine/delivery/show-signal.js';
import { listSignals } from '../../engine/messaging/list-signals.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import { watchSignals } from '../../engine/messaging/watch-signals.js';
import { type AckResult, type InvalidSignalFile, type SignalEntry } from '../../ports/signal-transport.js';
import { SIGNAL_BOXES, type SignalBox } from '../../core/schema/signal.js';
import { federationContext, printJson, type CliIo, type CommandContext } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { duration, nonEmptyPath, positiveInteger } from '../option-parsers.js';
import { renderTable } from '../../core/table.js';
import { displayLine, SUBJECT_CHARS } from '../../core/display-line.js';
import { notifyChannels } from '../../apps/needs-you/notify-channels.js';

/** How much of a subject a list line shows (control characters blanked, the rest cut with `…`). */

interface SendOptions {
  to: string;
  type: string;
  subject: string;
  body?: string;
  bodyFile?: string;
  from?: string;
  id?: string;
  replyTo?: string;
  json?: boolean;
}

interface ListOptions {
  team?: string;
  box: SignalBox;
  unacked?: boolean;
  type?: string;
  from?: string;
  state?: string;
  all?: boolean;
  json?: boolean;
}

/** Where `--from` and `--team` default to (locateFederation: the workspace's marker, then FED_TEAM). */
const DEFAULT_PARTY = `the team whose workspace you are in, else $FED_TEAM, else "${META}"`;

function partyOr(given: string | undefined, ctx: CommandContext): string {
  return given ?? ctx.team ?? META;
}

export function registerSignal(program: Command, io: CliIo): void {
  const signal = program
    .command('signal')
    .description('send, list, acknowledge and watch file-signal-v1 signals (JSON files in team inboxes and outboxes)');
  registerSend(signal, io);
  registerList(signal, io);
  registerShow(signal, io);
  registerArchive(signal, io);
  registerAck(signal, io);
  registerWatch(signal, io);
}

function registerSend(signal: Command, io: CliIo): void {
  signal
    .command('send')
    .description("write a signal into the recipient's inbox and a copy into the sender's outbox")
    .requiredOption('--to <team>', `recipient: a team id or "${META}"`)
    .addOption(new Option('--type <type>', 'signal type').choices(SIGNAL_TYPES).makeOptionMandatory())
    .requiredOption('--subject <text>', 'short summary (also names the file)')
    .option('--body <text>', 'full message content (default: empty)')
    .option('--body-file <path>', 'read the body from a file, or from standard input with "-"', nonEmptyPath('a file'))
    .option('--from <team>', `sender (default: ${DEFAULT_PARTY})`)
    .option('--id <uuid>', 'signal id; repeating a send with the same id delivers it only once')
    .option('--reply-to <id>', 'the id of the signal this one answers (that signal becomes "answered")')
    .option('--json', 'print the result as JSON')
    .action(async (options: SendOptions, command: Command) => {
      const ctx = federationContext(command, io);
      const body = await readBody(options, io);
      // The caller is the team the command runs as: an agent cannot send as meta or as another team.
      const result = await sendSignal(
        ctx.fed,
        {
          to: options.to,
          type: options.type,
          subject: options.subject,
          body,
          from: partyOr(options.from, ctx),
          id: options.id,
          replyTo: options.replyTo,
        },
        { caller: ctx.team },
      );
      for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
      // A question or escalation to meta is told at once; the notifier is loaded only when configured.
      if (result.delivered && notifyChannels(ctx.config.config).length > 0) {
        const { tellSentSignal } = await import('../../apps/needs-you/tell-sent-signal.js');
        for (const warning of await tellSentSignal(ctx.fed, result.message)) io.stderr(`warning: ${warning}\n`);
      }
      if (!result.delivered)
        io.stderr(`signal ${result.message.id} was already delivered; nothing new was written to the inbox\n`);
      if (options.json) {
        return printJson(io, {
          id: result.message.id,
          file: result.file,
          inbox: result.inboxPath,
          outbox: result.outboxPath,
          delivered: result.delivered,
          replyTo: options.replyTo?.toLowerCase() ?? null,
          message: result.message,
        });
      }
      io.stdout(`${result.inboxPath}\n`);
    });
}

function registerList(signal: Command, io: CliIo): void {
  signal
    .command('list')
    .description('list the signals of an inbox (or outbox), oldest first, with their delivery state and acknowledgment')
    .option('--team <team>', `whose box (default: ${DEFAULT_PARTY})`)
    .addOption(new Option('--box <box>', 'which box').choices(SIGNAL_BOXES).default('inbox'))
    .option('--unacked', 'only signals not acknowledged yet')
    .addOption(new Option('--type <type>', 'only signals of this type').choices(SIGNAL_TYPES))
    .option('--from <team>', 'only signals from this sender')
    .addOption(new Option('--state <state>', 'only signals in this delivery state').choices(DELIVERY_STATES))
    .option('--all', "archived signals too (the box's archive/ folder)")
    .option('--json', 'print {signals, invalid} as JSON')
    .action(async (options: ListOptions, command: Command) => {
      const ctx = federationContext(command, io);
      const listing = await listSignals(
        ctx.fed,
        {
          team: partyOr(options.team, ctx),
          box: options.box,
          unacknowledged: options.unacked,
          type: options.type,
          from: options.from,
          state: options.state,
          all: options.all,
        },
        { reader: partyOr(undefined, ctx), deadlines: ctx.config.config.signalDeadlines, caller: ctx.team },
      );
      if (options.json) return printJson(io, listing);
      reportInvalid(io, listing.invalid, listing.dir);
      if (listing.signals.length === 0) return io.stdout(`no signals in ${listing.dir}\n`);
      io.stdout(
        renderTable(
          ['TIMESTAMP', 'TYPE', 'FROM', 'TO', 'STATE', 'ACKNOWLEDGED', 'ID', 'ANSWERED BY', 'SUBJECT'],
          listing.signals.map(({ message, delivery, archived, answeredBy }) => [
            message.timestamp,
            message.type,
            message.from,
            message.to,
            archived ? `${delivery.state} (archived)` : delivery.state,
            listing.box === 'outbox' ? '-' : (message.acknowledged_at ?? 'no'),
            message.id,
            answeredBy ?? '-',
            displayLine(message.subject, SUBJECT_CHARS),
          ]),
        ),
      );
    });
}

function registerShow(signal: Command, io: CliIo): void {
  signal
    .command('show')
    .description(
      'show a signal (live or archived) with its delivery state and history: sent, read, acknowledged, answered',
    )
    .argument('<id>', 'signal id')
    .option('--json', 'print the signal, its state and history as JSON')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const report = await showSignal(ctx.fed, id, { deadlines: ctx.config.config.signalDeadlines, caller: ctx.team });
      if (options.json) return printJson(io, report);
      io.stdout(renderSignalReport(report));
    });
}

function registerArchive(signal: Command, io: CliIo): void {
  signal
    .command('archive')
    .description(
      "move acknowledged or answered signals older than a duration, with their ack files, into each box's archive/ folder",
    )
    .requiredOption('--older-than <duration>', 'only signals sent at least this long ago (30m, 12h, 7d)', duration())
    .option('--team <team>', `one team's (or "${META}"'s) boxes (default: meta and every team)`)
    .option('--json', 'print what was archived and kept per box as JSON')
    .action(async (options: { olderThan: number; team?: string; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const results = await archiveSignals(ctx.fed, { team: options.team, olderThanMs: options.olderThan });
      if (options.json) return printJson(io, results);
      for (const box of results) {
        if (box.skipped !== undefined) io.stderr(`warning: ${box.team} ${box.box} skipped: ${box.skipped}\n`);
        else if (box.archived > 0 || options.team !== undefined)
          io.stdout(`${box.team} ${box.box}: archived ${box.archived}, kept ${box.kept}\n`);
      }
      const total = results.reduce((sum, box) => sum + box.archived, 0);
      io.stdout(`${total} signal(s) archived\n`);
    });
}

function registerAck(signal: Command, io: CliIo): void {
  signal
    .command('ack')
    .description('acknowledge a signal of an inbox: writes <signal-file>.json.ack beside it (the first time is kept)')
    .argument('[signal]', 'signal id, or its file name or path in the inbox')
    .option('--all', 'acknowledge every signal of the inbox not acknowledged yet')
    .option('--team <team>', `whose inbox (default: ${DEFAULT_PARTY})`)
    .option('--json', 'print the acknowledgments as JSON')
    .action(
      async (
        target: string | undefined,
        options: { all?: boolean; team?: string; json?: boolean },
        command: Command,
      ) => {
        if (target === undefined && !options.all)
          throw new InvalidInputError('which signal? pass its id or file name, or --all for every unacknowledged one');
        if (target !== undefined && options.all) throw new InvalidInputError('pass either a signal or --all, not both');
        const ctx = federationContext(command, io);
        const team = partyOr(options.team, ctx);
        if (target === undefined) {
          // A team acknowledges only its own inbox (TEAM_NOT_CALLER): never meta's "Needs you".
          const result = await acknowledgeAll(ctx.fed, team, { caller: ctx.team });
          for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
          if (options.json)
            return printJson(io, {
              acknowledged: result.acknowledged.map(ackJson),
              invalid: result.invalid,
              warnings: result.warnings,
            });
          reportInvalid(io, result.invalid);
          reportQuarantinedAcks(io, result.acknowledged);
          if (result.acknowledged.length === 0) return io.stdout('nothing to acknowledge\n');
          for (const ack of result.acknowledged) io.stdout(ackLine(ack));
          return;
        }
        // A relative path is relative to where the user is, not to the inbox.
        const results = await acknowledgeSignal(
          ctx.fed,
          team,
          /[\\/]/.test(target) ? resolve(io.cwd, target) : target,
          { caller: ctx.team, onWarning: (warning) => io.stderr(`warning: ${warning}\n`) },
        );
        reportQuarantinedAcks(io, results);
        if (options.json) return printJson(io, results.map(ackJson));
        for (const ack of results) io.stdout(ackLine(ack));
      },
    );
}

function registerWatch(signal: Command, io: CliIo): void {
  signal
    .command('watch')
    .description('print signals as they arrive in an inbox, until interrupted (fs.watch plus a periodic rescan)')
    .option('--team <team>', `whose inbox (default: ${DEFAULT_PARTY})`)
    .option('--backlog', 'first print the signals already in the inbox that are not acknowledged')
    .option('--count <n>', 'stop after this many signals', positiveInteger('signals'))
    .option('--json', 'one JSON object per line: {file, path, message}')
    .action(async (options: { team?: string; backlog?: boolean; count?: number; json?: boolean }, command: Command) => {
      const limit = options.count;
      const ctx = federationContext(command, io);
      const controller = new Interrupt();
      const subscription = await watchSignals(ctx.fed, partyOr(options.team, ctx), {
        signal: controller.signal,
        backlog: options.backlog ? 'unacknowledged' : 'none',
        onInvalid: (file) => reportInvalid(io, [file]),
        caller: ctx.team,
      });
      // On stderr, so stdout stays one line per signal; scripts can wait for it before sending.
      io.stderr(`watching ${subscription.location} (interrupt to stop)\n`);
      try {
        let printed = 0;
        const reader = partyOr(undefined, ctx);
        for await (const entry of subscription) {
          io.stdout(options.json ? `${JSON.stringify(entry)}\n` : watchLine(entry));
          // Watching one's own inbox is reading it (the `read` delivery state).
          await markSignalsRead(ctx.fed.backend.delivery, reader, [entry.message]);
          if (limit !== undefined && ++printed >= limit) break;
        }
      } finally {
        controller.dispose();
        subscription.close();
      }
    });
}

async function readBody(options: SendOptions, io: CliIo): Promise<string> {
  if (options.body !== undefined && options.bodyFile !== undefined)
    throw new InvalidInputError('use either --body or --body-file, not both');
  if (options.bodyFile === undefined) return options.body ?? '';
  if (options.bodyFile === '-') return readStdin(io.env);
  const path = resolve(io.cwd, options.bodyFile);
  let read: BoundedRead;
  try {
    // A body never exceeds a signal; a FIFO or device given as the file is refused, not read forever.
    read = readFileBounded(path, { maxBytes: MAX_SIGNAL_BYTES });
  } catch {
    read = { ok: false, problem: 'ENOENT' };
  }
  if (!read.ok)
    throw new InvalidInputError(
      `--body-file ${path} cannot be read (${read.problem}); give a readable file, or - for standard input`,
    );
  return bodyText(read.bytes, `--body-file ${path}`);
}

/**
 * A body read from a file or standard input, which must be UTF-8 text: decoded leniently, bytes that are
 * not would each become U+FFFD — the body sent would silently differ from the file.
 */
function bodyText(bytes: Buffer, where: string): string {
  if (!isUtf8(bytes))
    throw new InvalidInputError(
      `${where} is not UTF-8 text, and a signal's body is text; convert it (iconv -t UTF-8), or put binary content in a file in the workspace and name that file in the body`,
    );
  return bytes.toString('utf8');
}

/**
 * How long a piped standard input may take to end (a pipe whose writer never closes it would hang fed):
 * 60 s, or FED_STDIN_TIMEOUT_SECONDS — at most what a timer can wait (a longer one would fire at once).
 */
function stdinTimeoutMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.FED_STDIN_TIMEOUT_SECONDS);
  return Math.min((Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000, MAX_TIMER_MS);
}

/**
 * Standard input up to the size of a signal: more is refused as soon as it arrives, not buffered without
 * end; and, unless a person is typing at a terminal, it must end in bounded time (stdinTimeoutMs).
 */
async function readStdin(env: NodeJS.ProcessEnv): Promise<string> {
  const timeoutMs = stdinTimeoutMs(env);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let timedOut = false;
  const timer = process.stdin.isTTY
    ? undefined
    : setTimeout(() => {
        timedOut = true;
        process.stdin.destroy();
      }, timeoutMs);
  try {
    for await (const chunk of process.stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      bytes += buffer.length;
      if (bytes > MAX_SIGNAL_BYTES) {
        process.stdin.destroy();
        throw new InvalidInputError(
          `--body-file -: standard input is over the ${MAX_SIGNAL_BYTES}-byte limit of a signal; write large content to a file in the workspace and name that file in the body`,
        );
      }
      chunks.push(buffer);
    }
  } catch (error) {
    // Destroyed by the timer: the iteration may end or fail, depending on timing; both mean "timed out".
    if (!timedOut) throw error;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) {
    throw new InvalidInputError(
      `--body-file -: standard input did not end within ${timeoutMs / 1000} s (FED_STDIN_TIMEOUT_SECONDS); pipe a body that ends (… | fed signal send --body-file -), or give --body-file <path>`,
    );
  }
  return bodyText(Buffer.concat(chunks), '--body-file -: standard input');
}

function reportInvalid(io: CliIo, invalid: readonly InvalidSignalFile[], dir?: string): void {
  for (const file of invalid) io.stderr(`invalid: ${file.file}: ${file.reason}\n`);
  if (invalid.length && dir) io.stderr(`(${invalid.length} invalid file(s) in ${dir} left untouched)\n`);
}

function ackJson(ack: AckResult) {
  return {
    id: ack.signal.message.id,
    file: ack.signal.file,
    ackPath: ack.ackPath,
    acknowledged_at: ack.signal.message.acknowledged_at,
    alreadyAcknowledged: ack.alreadyAcknowledged,
    ...(ack.quarantinedAck ? { quarantinedAck: ack.quarantinedAck } : {}),
  };
}

/** An unusable ack file that was in the way was moved, not deleted: say where it went. */
function reportQuarantinedAcks(io: CliIo, acks: readonly AckResult[]): void {
  for (const { ackPath, quarantinedAck: moved } of acks)
    if (moved) io.stderr(`warning: moved ${ackPath} to ${moved.path}: ${moved.reason}\n`);
}

function ackLine(ack: AckResult): string {
  const what = ack.alreadyAcknowledged ? 'already acknowledged' : 'acknowledged';
  return `${what} ${ack.signal.file} (${ack.signal.message.id}) at ${ack.signal.message.acknowledged_at ?? '?'}\n`;
}

function watchLine({ message, path }: SignalEntry): string {
  return `${message.timestamp}  ${message.type}  from ${message.from}  ${displayLine(message.subject, SUBJECT_CHARS)}  (${message.id})  ${path}\n`;
}

function renderSignalReport(report: SignalReport): string {
  const { message, delivery } = report;
  const fields: [string, string][] = [
    ['id', message.id],
    ['type', message.type],
    ['from', message.from],
    ['to', message.to],
    ['subject', displayLine(message.subject, 200)],
    ['sent', message.timestamp],
    ['state', delivery.state + (delivery.undeliverable ? ` (${delivery.undeliverable})` : '')],
    ['due', delivery.dueAt ?? '-'],
    ['answers', report.replyTo ?? '-'],
    ['file', `${report.path}${report.archived ? ' (archived)' : ''}`],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  const head = fields.map(([name, value]) => `${name.padEnd(width)}  ${value}\n`).join('');
  const history = report.history.map((event) => `  ${event.at}  ${event.event.padEnd(13)}${event.detail}\n`).join('');
  // The body keeps its lines and tabs; other control characters (terminal escapes) are blanked.
  // eslint-disable-next-line no-control-regex -- control characters are what it matches
  const body = message.body.replace(/[\u0000-\u0008\u000B-\u001F\u007F\u202A-\u202E\u2066-\u2069]/g, ' ');
  return `${head}\nhistory:\n${history}${body === '' ? '' : `\n${body}${body.endsWith('\n') ? '' : '\n'}`}`;
}
