import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { CorruptFileError, RefusedError } from '../errors.js';
import { createFileExclusive, writeFileAtomic, type WriteOptions } from '../fs/atomic-write.js';
import { toJsonText } from '../fs/json-text.js';
import { signalMessageSchema, type SignalAck } from '../schema/signal.js';
import { recordSignalAcknowledged } from '../telemetry/fed-metrics.js';
import { judgeAck, readBoxFile } from './parse-signal-file.js';
import { readSignalBox, type InvalidSignalFile, type SignalEntry } from './read-signals.js';
import { resolveSignalWorkspace } from './resolve-workspace.js';
import { ackFileName } from './signal-file-name.js';

export interface AckOptions extends WriteOptions {
  now?: () => Date;
}

export interface AckResult {
  /** The signal, now showing `acknowledged: true` and the time of its (first) acknowledgment. */
  signal: SignalEntry;
  ackPath: string;
  /** True when it had been acknowledged before; the first acknowledgment time is kept. */
  alreadyAcknowledged: boolean;
}

export interface AckAllResult {
  acknowledged: AckResult[];
  /** Files of the inbox that are not valid signals; they cannot be acknowledged and are left in place. */
  invalid: InvalidSignalFile[];
}

/**
 * Acknowledge one signal of `team`'s inbox (spec §4.3): write `<signal-file>.json.ack` beside it.
 * `target` is the signal's id, its file name, or an absolute path to it inside that inbox. Every signal
 * file carrying the id is acknowledged (a copy made by hand is still the same signal).
 */
export function acknowledgeSignal(root: string, team: string, target: string, options: AckOptions = {}): AckResult[] {
  const { inbox, id } = resolveSignalWorkspace(root, team, { role: 'team (--team)' });
  const { signals, invalid } = readSignalBox(inbox, { owner: id, box: 'inbox' });
  const listHint = `list them with: fed signal list --team ${id}`;

  // A signal file name always ends in .json, so it is never mistaken for an id.
  if (signalMessageSchema.shape.id.safeParse(target).success) {
    const matches = signals.filter((s) => s.message.id === target.toLowerCase());
    if (matches.length === 0) throw new RefusedError('UNKNOWN_SIGNAL', `no signal with id ${target} in the inbox of "${id}" (${inbox}); ${listHint}`);
    return matches.map((signal) => writeAck(signal, options));
  }

  const file = signalFileIn(inbox, target);
  const signal = signals.find((s) => s.file === file);
  if (signal) return [writeAck(signal, options)];
  const bad = invalid.find((i) => i.file === file);
  if (bad) throw new RefusedError('INVALID_SIGNAL', `${bad.path} is not a valid signal (${bad.reason}), so it cannot be acknowledged`);
  throw new RefusedError('UNKNOWN_SIGNAL', `no signal "${target}" in the inbox of "${id}" (${inbox}); pass a signal id or file name — ${listHint}`);
}

/**
 * `fed signal ack --all`: acknowledge every signal of the inbox that is not acknowledged yet. A signal
 * whose ack file is corrupt is left to a person (it is in `invalid`), so it cannot stop the others.
 */
export function acknowledgeAll(root: string, team: string, options: AckOptions = {}): AckAllResult {
  const { inbox, id } = resolveSignalWorkspace(root, team, { role: 'team (--team)' });
  const { signals, invalid } = readSignalBox(inbox, { owner: id, box: 'inbox' });
  const brokenAcks = new Set(invalid.map((file) => file.file));
  const pending = signals.filter((s) => !s.message.acknowledged && !brokenAcks.has(ackFileName(s.file)));
  return { acknowledged: pending.map((s) => writeAck(s, options)), invalid };
}

/**
 * Write the ack file of one signal (for consumers that already hold the entry, like the actor system).
 * It is created exclusively — never replaced — so acknowledging again keeps the first time, and two
 * concurrent acknowledgers agree on one.
 */
export function writeAck(signal: SignalEntry, options: AckOptions = {}): AckResult {
  const ackPath = ackPathOf(signal);
  const ack: SignalAck = { acknowledged: true, acknowledged_at: (options.now?.() ?? new Date()).toISOString() };
  const writeOptions: WriteOptions = { durable: options.durable ?? true };
  if (createFileExclusive(ackPath, toJsonText(ack), writeOptions)) {
    recordSignalAcknowledged(signal.message.to, signal.message.type);
    return { signal: acknowledged(signal, ack), ackPath, alreadyAcknowledged: false };
  }
  const existing = readAck(ackPath);
  if (existing.acknowledged) return { signal: acknowledged(signal, existing), ackPath, alreadyAcknowledged: true };
  // An ack file that says "not acknowledged" (spec §2.2 allows the value) is superseded, not kept.
  writeFileAtomic(ackPath, toJsonText(ack), writeOptions);
  recordSignalAcknowledged(signal.message.to, signal.message.type);
  return { signal: acknowledged(signal, ack), ackPath, alreadyAcknowledged: false };
}

export function ackPathOf(signal: SignalEntry): string {
  return join(dirname(signal.path), ackFileName(signal.file));
}

function readAck(ackPath: string): SignalAck {
  const file = readBoxFile(ackPath);
  const judged = file.bytes ? judgeAck(file.bytes) : { ok: false as const, reason: file.problem ?? 'unreadable' };
  if (!judged.ok) throw new CorruptFileError(ackPath, judged.reason);
  return judged.value;
}

function acknowledged(signal: SignalEntry, ack: SignalAck): SignalEntry {
  return { ...signal, message: { ...signal.message, acknowledged: true, acknowledged_at: ack.acknowledged_at } };
}

/** A file name, or an absolute path that must lie directly in `inbox` (nothing else can be acknowledged). */
function signalFileIn(inbox: string, target: string): string {
  if (!isAbsolute(target)) {
    if (target.includes('/') || target.includes('\\')) {
      throw new RefusedError('UNKNOWN_SIGNAL', `"${target}" is neither a signal id nor a file name in ${inbox}`);
    }
    return target;
  }
  const dir = realDir(dirname(target));
  if (dir === undefined || dir !== realDir(inbox)) {
    throw new RefusedError('UNKNOWN_SIGNAL', `${target} is not in the inbox ${inbox}; only signals of that inbox can be acknowledged there`);
  }
  return basename(target);
}

function realDir(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}
