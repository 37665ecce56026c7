import type { ChatMessage } from '../../core/schema/chat.js';

/**
 * The chat channel port (docs/design/spec.md §1, §5): a notification channel to a chat product that carries summaries
 * and meta's user commands — never signals. fed holds no chat SDK and no credentials; adapters reach the
 * product through an agent host's own chat tool (AgentHostChatChannel) or stand in for it with files
 * (FileChatChannel).
 */
export interface ChatPoll {
  messages: ChatMessage[];
  /** Entries that could not be read as messages (they are skipped, and said so). */
  problems: string[];
}

/**
 * The most messages a poll asks the agent host for (oldest first). A full page means more may be waiting,
 * so the next poll starts right after it instead of looking back.
 */
export const CHAT_POLL_LIMIT = 100;

export interface ChatChannel {
  /** What the channel is, for messages to people. */
  readonly description: string;
  post(text: string): Promise<void>;
  /** Messages posted at or after `since` (ISO 8601), in any order; older ones may come too, never fewer. */
  poll(since: string): Promise<ChatPoll>;
}
