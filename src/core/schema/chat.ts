import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';

/**
 * The chat channel's formats (docs/design/spec.md §1, §6): messages as the adapters hand them to fed, what an agent
 * host prints back, and the bridge's state file. Everything lives under `<root>/.fed/chat/`.
 */
export const CHAT_DIR = 'chat';
/** The file channel: one `<time>-<id>.json` file per message. */
export const CHAT_MESSAGES_DIR = 'messages';
export const BRIDGE_STATE_FILE = 'bridge-state.json';
export const BRIDGE_LOCK_FILE = 'bridge.lock';

/** One chat message. `at` orders messages; `text` may hold the chat product's markup (e.g. `<at>…</at>`). */
export const chatMessageSchema = builtOnFirstUse(() =>
  z
    .object({
      id: nonEmptyString,
      at: isoTimestamp,
      author: z.string().optional(),
      text: z.string(),
    })
    .meta({
      title: 'ChatMessage',
      description:
        'A chat message: a file of .fed/chat/messages/, or one entry of an agent host\'s {"messages": […]} line',
    }),
);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** What an agent host prints (one JSON line among any other output) after posting a message. */
export const agentPostResultSchema = builtOnFirstUse(() =>
  z.object({
    posted: z.boolean(),
    id: z.string().optional(),
    error: z.string().optional(),
  }),
);

/** What an agent host prints (one JSON line among any other output) after reading the channel. */
export const agentPollResultSchema = builtOnFirstUse(() => z.object({ messages: z.array(z.unknown()) }));

/**
 * `.fed/chat/bridge-state.json`: where the bridge is in the channel and what it still owes. A message's
 * id enters `handled` in the same atomic write that puts its reply in `outbox`, and the reply leaves
 * `outbox` once posted — so a restart neither runs a command again nor loses its reply.
 */
export const bridgeStateSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      /** When the bridge first ran: older messages are history, never commands. */
      startedAt: isoTimestamp,
      /** The latest message time seen; polls go back a little before it to catch late arrivals. */
      watermark: isoTimestamp,
      /** Messages acted on, kept while they can still come back in a poll. */
      handled: z.array(z.strictObject({ id: nonEmptyString, at: isoTimestamp })),
      /** Replies not posted yet, oldest first. */
      outbox: z.array(z.strictObject({ replyTo: nonEmptyString, text: z.string() })),
      updatedAt: isoTimestamp,
    })
    .meta({ title: 'ChatBridgeState', description: 'The state of `fed chat bridge`: .fed/chat/bridge-state.json' }),
);
export type BridgeState = z.infer<typeof bridgeStateSchema>;
