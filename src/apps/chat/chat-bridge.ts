import { ConfigValidationError, RefusedError } from '../../core/errors.js';
import { acquireLock, describeLockOwner, LockTimeoutError, releaseLock, type LockHandle } from '../../infra/fs/lock.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import { federationPaths } from '../../core/layout.js';
import { launchTeam } from '../launch/launch-team.js';
import type { BridgeState, ChatMessage } from '../../core/schema/chat.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { federationNameProblem } from './bridge-config.js';
import { runBridgeCommand } from './bridge-commands.js';
import { readBridgeState, writeBridgeState } from './bridge-state.js';
import { CHAT_POLL_LIMIT, type ChatChannel } from './chat-channel.js';
import { addressedCommand, plainText, type AddressedCommand } from './chat-text.js';
import { signature, signed } from './signature.js';
import type { Federation } from '../../engine/context.js';

/** How far before the watermark a poll reaches back, for messages that arrive late or out of order. */
export const POLL_LOOKBACK_MS = 60_000;
/** Replies are cut to this length, so no reply is too long to post and blocks the ones after it. */
const MAX_REPLY_CHARS = 4_000;

export interface ChatBridgeOptions {
  fed: Federation;
  config: FederationConfig;
  channel: ChatChannel;
  /** Passed to launches started from chat. */
  hooks?: LoadedHooks;
  /** Interrupts launches started from chat (they pause their team, as Ctrl-C on `fed launch` does). */
  signal?: AbortSignal;
  now?: () => Date;
  /** Told about what the bridge does, for a person watching it. */
  onActivity?: (activity: BridgeActivity) => void;
}

export type BridgeActivity =
  | { kind: 'command'; message: ChatMessage; command: string; reply: string; failed: boolean }
  | { kind: 'launch-finished'; team: string; reply: string }
  | { kind: 'warning'; text: string };

/**
 * The chat presence bridge (docs/design/spec.md §6): polls the channel for messages that mention `@<federationName>` and
 * runs each as a user command, replying with the result.
 *
 * Once across restarts: a message's id is recorded in the same atomic write of the state file that queues
 * its reply, and the reply leaves the queue once posted. A restart therefore never runs a recorded command
 * again and still posts a queued reply. What remains is chosen, not accidental: a crash after a command
 * ran but before that write runs it once more on restart (harmless: see runBridgeCommand), and a crash
 * between posting a reply and recording that may post it twice — an answer twice rather than none, since
 * a user who gets no answer cannot tell whether the command ran.
 */
export class ChatBridge {
  private readonly options: ChatBridgeOptions;
  private readonly name: string;
  private readonly stateFile: string;
  private readonly lock: LockHandle;
  private state: BridgeState;
  private readonly launches = new Set<Promise<void>>();
  /** The last poll returned a full page (CHAT_POLL_LIMIT messages). */
  private pageFull = false;
  private flushing: Promise<void> = Promise.resolve();

  private constructor(options: ChatBridgeOptions, name: string, lock: LockHandle, state: BridgeState) {
    this.options = options;
    this.name = name;
    this.lock = lock;
    this.state = state;
    this.stateFile = federationPaths(options.fed.root).chatBridgeState;
  }

  /**
   * Start a bridge: needs `federationName` (docs/design/spec.md §7: the bridge throws without it), and refuses to run
   * beside another bridge of the same federation, which would answer every message twice.
   */
  static async open(options: ChatBridgeOptions): Promise<ChatBridge> {
    const paths = federationPaths(options.fed.root);
    const missing = federationNameProblem(options.config, paths.config);
    if (missing) throw new ConfigValidationError(paths.config, [missing]);
    const name = options.config.federationName!;
    options.fed.folderForWrite(paths.chat);
    let lock: LockHandle;
    try {
      lock = await acquireLock(paths.chatBridgeLock, { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 0 });
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
      throw new RefusedError(
        'BRIDGE_BUSY',
        `another chat bridge is running for ${options.fed.root} (${describeLockOwner(error.owner)}); one bridge per federation — stop the other one first`,
      );
    }
    try {
      let state = readBridgeState(paths.chatBridgeState);
      if (!state) {
        // Messages older than the first start are history, not commands for this bridge.
        const now = (options.now?.() ?? options.fed.now()).toISOString();
        state = { startedAt: now, watermark: now, handled: [], outbox: [], updatedAt: now };
        writeBridgeState(paths.chatBridgeState, state);
      }
      return new ChatBridge(options, name, lock, state);
    } catch (error) {
      releaseLock(lock);
      throw error;
    }
  }

  /** Post owed replies, poll once, act on every new command, post the replies. Returns how many commands ran. */
  async pollOnce(): Promise<number> {
    await this.flushReplies();
    const startedAt = Date.parse(this.state.startedAt);
    // After a full page, more messages may be waiting right after it: continue from there, or a busy
    // minute of more than a page would be returned again and again, and nothing newer ever seen.
    const lookback = this.pageFull ? 0 : POLL_LOOKBACK_MS;
    const since = Math.max(startedAt, Date.parse(this.state.watermark) - lookback);
    const poll = await this.options.channel.poll(new Date(since).toISOString());
    this.pageFull = poll.messages.length >= CHAT_POLL_LIMIT;
    for (const problem of poll.problems)
      this.options.onActivity?.({ kind: 'warning', text: `skipped a chat message: ${problem}` });

    const handled = new Set(this.state.handled.map((h) => h.id));
    const now = this.now().getTime();
    let watermark = Date.parse(this.state.watermark);
    let ran = 0;
    const messages = [...poll.messages].sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.id.localeCompare(b.id));
    for (const message of messages) {
      const at = Date.parse(message.at);
      // A time ahead of this clock must not push the watermark past messages still to come.
      watermark = Math.max(watermark, Math.min(at, now));
      if (at < since || handled.has(message.id) || plainText(message.text).startsWith(signature(this.name))) continue;
      const command = addressedCommand(message.text, this.name);
      if (!command) continue;
      const { reply, failed } = await this.run(command, message);
      this.state.handled.push({ id: message.id, at: message.at });
      this.state.outbox.push({ replyTo: message.id, text: reply });
      this.save();
      handled.add(message.id);
      ran++;
      this.options.onActivity?.({ kind: 'command', message, command: command.line, reply, failed });
    }
    this.state.watermark = new Date(watermark).toISOString();
    // Only what the next poll can return again needs remembering.
    this.state.handled = this.state.handled.filter((h) => Date.parse(h.at) >= watermark - POLL_LOOKBACK_MS);
    this.save();
    await this.flushReplies();
    return ran;
  }

  /** Wait for launches started from chat, post what is owed, and release the bridge. */
  async close(): Promise<void> {
    try {
      while (this.launches.size) await Promise.all(this.launches);
      await this.flushReplies();
    } finally {
      releaseLock(this.lock);
    }
  }

  private async run(command: AddressedCommand, message: ChatMessage): Promise<{ reply: string; failed: boolean }> {
    try {
      const reply = await runBridgeCommand(command, {
        fed: this.options.fed,
        config: this.options.config,
        messageId: message.id,
        startLaunch: (team) => this.startLaunch(team, message.id),
      });
      return { reply: this.sign(reply), failed: false };
    } catch (error) {
      return { reply: this.sign(`"${command.line}" failed: ${describe(error)}`), failed: true };
    }
  }

  private startLaunch(team: string, replyTo: string): void {
    const launch = launchTeam(this.options.fed, team, {
      config: this.options.config,
      hooks: this.options.hooks,
      signal: this.options.signal,
    })
      .then(
        (result) =>
          result.outcome === 'complete'
            ? `launch of ${team} complete${result.deliverableExists ? `: ${result.deliverablePath}` : ` (${result.state})`}`
            : result.outcome === 'waiting'
              ? `launch of ${team} done, waiting in ${result.state}: ${result.next}`
              : result.outcome === 'paused'
                ? `launch of ${team} paused in ${result.state}; resume with @${this.name} resume ${team}, then launch it again`
                : `launch of ${team} failed: ${result.reason}`,
        (error: unknown) => `launch of ${team} failed: ${describe(error)}`,
      )
      .then(async (text) => {
        const reply = this.sign(text);
        this.state.outbox.push({ replyTo, text: reply });
        this.save();
        this.options.onActivity?.({ kind: 'launch-finished', team, reply });
        await this.flushReplies();
      })
      // The outcome could not be queued (the state file cannot be written): say so, never crash the bridge.
      .catch((error: unknown) =>
        this.options.onActivity?.({
          kind: 'warning',
          text: `the outcome of the launch of ${team} could not be queued: ${describe(error)}`,
        }),
      )
      .finally(() => this.launches.delete(launch));
    this.launches.add(launch);
  }

  /** Post queued replies in order, one at a time; a failure leaves the rest queued for the next try. */
  private flushReplies(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.state.outbox.length) {
        const reply = this.state.outbox[0]!;
        try {
          await this.options.channel.post(reply.text);
        } catch (error) {
          this.options.onActivity?.({
            kind: 'warning',
            text: `a reply could not be posted to ${this.options.channel.description}; it stays queued: ${describe(error)}`,
          });
          return;
        }
        this.state.outbox = this.state.outbox.filter((r) => r !== reply);
        this.save();
      }
    });
    return this.flushing;
  }

  private sign(text: string): string {
    const cut = text.length > MAX_REPLY_CHARS ? `${text.slice(0, MAX_REPLY_CHARS)}… (cut)` : text;
    return signed(cut, this.name);
  }

  private save(): void {
    this.state.updatedAt = this.now().toISOString();
    writeBridgeState(this.stateFile, this.state);
  }

  private now(): Date {
    return this.options.now?.() ?? this.options.fed.now();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
