import { dirname, join } from 'node:path';
import { CorruptFileError, type FedError } from '../../../core/errors.js';
import { quarantineSignalFile } from './quarantine.js';
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
  let quarantinedAck: AckResult['quarantinedAck'];
  const result = (entry: SignalEntry, alreadyAcknowledged: boolean): AckResult =>
    quarantinedAck
      ? { signal: entry, ackPath, alreadyAcknowledged, quarantinedAck }
      : { signal: entry, ackPath, alreadyAcknowledged };
  // A bad ack in the way is moved to quarantine once; then the slot is free, or another acknowledger took
  // it meanwhile, and its ack is the first. A few attempts cover that; more means something keeps writing there.
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (createFileExclusive(ackPath, toJsonText(ack), { ...writeOptions, syncDirectory: options.syncDirectory })) {
      recordSignalAcknowledged(signal.message.to, signal.message.type);
      return result(acknowledged(signal, ack), false);
    }
    const existing = readAck(ackPath);
    if ('ack' in existing) {
      if (existing.ack.acknowledged) return result(acknowledged(signal, existing.ack), true);
      // An ack file that says "not acknowledged" (docs/design/spec.md §2.2 allows the value) is superseded, not kept.
      writeFileAtomic(ackPath, toJsonText(ack), writeOptions);
      recordSignalAcknowledged(signal.message.to, signal.message.type);
      return result(acknowledged(signal, ack), false);
    }
    // Gone since the create failed (another acknowledger quarantined it): the slot may be free now.
    if (existing.problem === undefined) continue;
    // Garbage, empty, a FIFO or a directory in the ack's place would keep the signal from ever being
    // acknowledged: it goes to quarantine (never deleted), and the ack is written in its place.
    if (quarantinedAck || existing.unknown) throw new CorruptFileError(ackPath, existing.problem);
    const reason = `an unusable ack file: ${existing.problem}`;
    try {
      quarantinedAck = { ...quarantineSignalFile({ path: ackPath, reason }, options), reason };
    } catch (error) {
      if ((error as FedError).code !== 'SIGNAL_FILE_MISSING') throw error;
    }
  }
  throw new CorruptFileError(ackPath, 'it kept changing while the acknowledgment was being written');
}

export function ackPathOf(signal: SignalEntry): string {
  return join(dirname(signal.path), ackFileName(signal.file));
}

/**
 * The ack file in the slot: its value, or why it is unusable (`unknown` when it could not be read at all,
 * an I/O error that says nothing about the file), or neither when it is gone.
 */
function readAck(ackPath: string): { ack: SignalAck } | { problem?: string; unknown?: boolean } {
  let file;
  try {
    file = readBoxFile(ackPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const judged = file.bytes ? judgeAck(file.bytes) : { ok: false as const, reason: file.problem ?? 'unreadable' };
  if (judged.ok) return { ack: judged.value };
  return file.key.startsWith('error:') ? { problem: judged.reason, unknown: true } : { problem: judged.reason };
}

function acknowledged(signal: SignalEntry, ack: SignalAck): SignalEntry {
  return { ...signal, message: { ...signal.message, acknowledged: true, acknowledged_at: ack.acknowledged_at } };
}
