import { readdirSync } from 'node:fs';
import { v7 as uuidv7 } from 'uuid';
import { join } from 'node:path';
import { publishFileNoClobber, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { CheckedRootFolders } from '../../adapters/index.js';
import { readFileBounded, type BoundedRead } from '../../infra/fs/read-file-bounded.js';
import { parseJsonText, toJsonText } from '../../core/json-text.js';
import { federationPaths } from '../../core/layout.js';
import { chatMessageSchema, type ChatMessage } from '../../core/schema/chat.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { ChatChannel, ChatPoll } from './chat-channel.js';

export interface FileChannelOptions extends WriteOptions {
  /** Author of the messages this channel posts (default `fed`). */
  author?: string;
  now?: () => Date;
}

/**
 * The chat channel as files, for offline use and tests: each message is one `<time>-<id>.json` file in
 * `.fed/chat/messages/` holding a ChatMessage, published complete and never over another one. Anyone may
 * add a message by writing such a file (written elsewhere, then moved in). A poll reads every file — the
 * folder is a stand-in for a chat product, not a store for years of history.
 */
export class FileChatChannel implements ChatChannel {
  readonly dir: string;
  readonly description: string;
  private readonly options: FileChannelOptions;
  /** The folder is one of the root's runtime folders: a link there is refused, never written through. */
  private readonly folders: CheckedRootFolders;

  constructor(root: string, options: FileChannelOptions = {}) {
    this.dir = federationPaths(root).chatMessages;
    this.folders = new CheckedRootFolders(root);
    this.description = `the file channel ${this.dir}`;
    this.options = options;
  }

  async post(text: string): Promise<void> {
    const message: ChatMessage = {
      // Time-ordered (and in order within a millisecond): messages posted in one millisecond are read, and
      // so answered, in the order they were posted. uuid keeps that order with state of its own, which it
      // skips for random bytes handed in: its random bits are its own, not src/infra/crypto/random.ts's.
      id: uuidv7(),
      at: (this.options.now?.() ?? new Date()).toISOString(),
      author: this.options.author ?? 'fed',
      text,
    };
    this.folders.folderForWrite(this.dir, this.options);
    publishFileNoClobber(
      this.dir,
      `${message.at.replace(/:/g, '')}-${message.id}.json`,
      toJsonText(message),
      this.options,
    );
  }

  async poll(since: string): Promise<ChatPoll> {
    // The folder exists once anything polled it, so people know where to drop messages.
    this.folders.folderForWrite(this.dir, this.options);
    const from = Date.parse(since);
    const result: ChatPoll = { messages: [], problems: [] };
    for (const name of this.names()) {
      const path = join(this.dir, name);
      let read: BoundedRead;
      try {
        // A chat message is a line of text: anything over 1 MiB, or not a file, is reported and skipped.
        read = readFileBounded(path, { maxBytes: 1024 * 1024, noFollow: true });
      } catch {
        continue;
      }
      if (!read.ok) {
        result.problems.push(`${path}: ${read.problem}`);
        continue;
      }
      const text = read.bytes.toString('utf8');
      const json = parseJsonText(text);
      if (!json.ok) {
        result.problems.push(`${path}: not valid JSON (line ${json.line}, column ${json.column}: ${json.message})`);
        continue;
      }
      const parsed = chatMessageSchema.safeParse(json.value);
      if (!parsed.success) result.problems.push(`${path}: ${zodProblemText(parsed.error)}`);
      else if (Date.parse(parsed.data.at) >= from) result.messages.push(parsed.data);
    }
    return result;
  }

  private names(): string[] {
    // Temp files of a publish in progress are dot-files ending in .tmp: never picked up here.
    return readdirSync(this.dir).filter((name) => name.endsWith('.json'));
  }
}
