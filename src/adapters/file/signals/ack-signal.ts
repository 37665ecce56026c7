import { dirname, join } from 'node:path';
import { CorruptFileError } from '../../../core/errors.js';
import {
  createFileExclusive,
  writeFileAtomic,
  type CreateOptions,
  type WriteOptions,
} from '../../../infra/fs/atomic-write.js';
import { toJsonText } from '../../../core/json-text.js';
import type { SignalAck } from '../../../core/schema/signal.js';
import { recordSignalAcknowledged } from '../../../infra/telemetry/fed-metrics.js';
import { readBoxFile } from './parse-signal-file.js';
import { judgeAck } from '../../../core/schema/judge-signal.js';
import type { AckResult, SignalEntry } from '../../../ports/signal-transport.js';
import { ackFileName } from './signal-file-name.js';

export interface AckOptions extends CreateOptions {
  now?: () => Date;
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
  if (createFileExclusive(ackPath, toJsonText(ack), { ...writeOptions, syncDirectory: options.syncDirectory })) {
    recordSignalAcknowledged(signal.message.to, signal.message.type);
    return { signal: acknowledged(signal, ack), ackPath, alreadyAcknowledged: false };
  }
  const existing = readAck(ackPath);
  if (existing.acknowledged) return { signal: acknowledged(signal, existing), ackPath, alreadyAcknowledged: true };
  // An ack file that says "not acknowledged" (docs/design/spec.md §2.2 allows the value) is superseded, not kept.
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
