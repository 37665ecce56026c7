import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseSince, readFederationLog, type LogEntry, type LogQuery } from '../../apps/log/federation-log.js';
import { federationContext, printJson, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';

/** How often `--follow` looks again. */
const FOLLOW_POLL_MS = 300;

export function registerLog(program: Command, io: CliIo): void {
  program
    .command('log')
    .description(
      'what happened, in time order: onboarding, status changes, launches, transitions, signals — of one team or the whole federation',
    )
    .option('--team <team>', 'only this team (signals to and from it included)')
    .option(
      '--since <time>',
      'only from this time: an ISO date-time, or a duration back from now (30s, 10m, 2h, 1d, 1w)',
    )
    .option('--follow', 'keep printing new entries as they happen (Ctrl-C stops)')
    .option('--json', 'print the entries as a JSON array (with --follow: one JSON object per line)')
    .action(async (options: { team?: string; since?: string; follow?: boolean; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const query: LogQuery = {
        team: options.team,
        since: options.since === undefined ? undefined : parseSince(options.since),
      };
      const render = (e: LogEntry) =>
        options.json ? `${JSON.stringify(publicEntry(e))}\n` : `${e.at}  ${e.team.padEnd(16)} ${e.text}\n`;
      const { entries, warnings } = await readFederationLog(ctx.fed, query);
      for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
      if (!options.follow) {
        if (options.json) return printJson(io, entries.map(publicEntry));
        if (entries.length === 0)
          return io.stdout(
            query.since ? `nothing recorded since ${query.since.toISOString()}\n` : 'nothing recorded yet\n',
          );
        return io.stdout(entries.map(render).join(''));
      }
      const seen = new Set<string>();
      const print = (list: readonly LogEntry[]) => {
        const fresh = list.filter((e) => !seen.has(e.key));
        for (const e of fresh) seen.add(e.key);
        if (fresh.length) io.stdout(fresh.map(render).join(''));
      };
      print(entries);
      const interrupt = new Interrupt();
      try {
        while (!interrupt.signal.aborted) {
          await sleep(FOLLOW_POLL_MS, undefined, { signal: interrupt.signal }).catch(() => undefined);
          // Warned once, above: a line skipped stays in the journal.
          if (!interrupt.signal.aborted)
            print((await readFederationLog(ctx.fed, { ...query, archived: false })).entries);
        }
      } finally {
        interrupt.dispose();
      }
    });
}

function publicEntry(e: LogEntry): Omit<LogEntry, 'key'> {
  const { key: _key, ...rest } = e;
  return rest;
}
