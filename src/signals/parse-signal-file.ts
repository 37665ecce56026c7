import { readFileBounded } from '../fs/read-json-file.js';
import { parseJsonText } from '../fs/json-text.js';
import { zodProblemText } from '../schema/problems.js';
import {
  MAX_SIGNAL_BYTES,
  SIGNAL_PROTOCOL,
  signalAckSchema,
  signalMessageSchema,
  type SignalAck,
  type SignalMessage,
} from '../schema/signal.js';

/**
 * Reading one file of a signal box and judging it. Every way a file can be unusable ends in a reason a
 * person can act on — never an exception — so one bad file cannot hide the others (invariant 4).
 */
import { type SignalBox } from '../ports/signal-transport.js';

export { SIGNAL_BOXES, type SignalBox } from '../ports/signal-transport.js';

/** `incomplete`: the bytes are empty or not (yet) JSON — what a file still being written looks like. */
export type Judged<T> = { ok: true; value: T } | { ok: false; reason: string; incomplete?: boolean };

/** What the box a file sits in expects of it: an inbox holds signals `to` its owner, an outbox signals `from` it. */
export interface BoxExpectation {
  owner: string;
  box: SignalBox;
}

/** The file's contents and the stat they were read with (the reader's cache key). */
export interface ReadFile {
  bytes: Buffer | undefined;
  /** `ino:size:mtime` of the file that was read. */
  key: string;
  problem: string | undefined;
  /** A directory, FIFO, device or socket: not a file at all, so it cannot be quarantined (moved by a hard link). */
  special?: boolean;
  /** When the file last changed (undefined when it could not be opened). */
  mtimeMs?: number;
}

export function statKey(stat: { ino: number; size: number; mtimeMs: number }): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/**
 * Read a box file without following a symbolic link (a link could point anywhere outside the box),
 * without blocking on a FIFO and without reading more than `maxBytes` (src/fs readFileBounded). The stat
 * comes from the same open file as the bytes, so the cache key always describes what was parsed. Throws
 * ENOENT when the file vanished since the listing.
 */
export function readBoxFile(path: string, maxBytes = MAX_SIGNAL_BYTES): ReadFile {
  const read = readFileBounded(path, { maxBytes, noFollow: true });
  if (read.ok) {
    const key = statKey(read.stat);
    const mtimeMs = read.stat.mtimeMs;
    return read.bytes.length === 0 ? { bytes: undefined, key, problem: 'the file is empty', mtimeMs } : { bytes: read.bytes, key, problem: undefined, mtimeMs };
  }
  if (read.code === 'ELOOP') return { bytes: undefined, key: 'symlink', problem: 'a symbolic link, not a signal file' };
  if (read.stat === undefined) return { bytes: undefined, key: `error:${read.code}`, problem: read.problem };
  return { bytes: undefined, key: statKey(read.stat), problem: read.problem, special: !read.stat.isFile(), mtimeMs: read.stat.mtimeMs };
}

function parseJson(bytes: Buffer): Judged<unknown> {
  // Editors on some systems prepend a byte-order mark; it is not part of the JSON.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') return { ok: false, reason: 'the file is empty (only whitespace)', incomplete: true };
  const json = parseJsonText(text);
  if (!json.ok) return { ok: false, reason: `not valid JSON at line ${json.line}, column ${json.column} (${json.message})`, incomplete: true };
  return { ok: true, value: json.value };
}

export function judgeSignal(bytes: Buffer, expect: BoxExpectation): Judged<SignalMessage> {
  const json = parseJson(bytes);
  if (!json.ok) return json;
  const parsed = signalMessageSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, reason: `not a valid ${SIGNAL_PROTOCOL} signal: ${zodProblemText(parsed.error)}` };
  }
  const message = parsed.data;
  if (expect.box === 'inbox' && message.to !== expect.owner) {
    return { ok: false, reason: `addressed to "${message.to}", but this is the inbox of "${expect.owner}"` };
  }
  if (expect.box === 'outbox' && message.from !== expect.owner) {
    return { ok: false, reason: `sent by "${message.from}", but this is the outbox of "${expect.owner}"` };
  }
  return { ok: true, value: message };
}

export function judgeAck(bytes: Buffer): Judged<SignalAck> {
  const json = parseJson(bytes);
  if (!json.ok) return json;
  const parsed = signalAckSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, reason: `not a valid acknowledgment: ${zodProblemText(parsed.error)}` };
  }
  return { ok: true, value: parsed.data };
}
