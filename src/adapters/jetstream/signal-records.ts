import type { InvalidSignalFile, SignalEntry } from '../../ports/signal-transport.js';
import type { SignalBox } from '../../core/schema/signal.js';
import type { SignalAck, SignalMessage } from '../../core/schema/signal.js';
import { judgeAck, judgeSignal } from '../../core/schema/judge-signal.js';
import type { StreamRecord } from './read-subject.js';

/**
 * Turning stored JetStream messages into the port's entries. A signal's handle is its stream sequence
 * (unique in the stream, so in every box); its location names server, stream and sequence.
 */
export interface RecordJudge {
  /** `nats://… stream FED_x_SIGNALS`, the prefix of every location. */
  where: string;
}

export const signalLocation = (where: string, seq: number | string): string => `${where} seq ${seq}`;

export function judgeRecord(
  judge: RecordJudge,
  record: StreamRecord,
  owner: string,
  box: SignalBox,
): { signal: SignalEntry } | { invalid: InvalidSignalFile } {
  const file = String(record.seq);
  const path = signalLocation(judge.where, record.seq);
  const judged = judgeSignal(Buffer.from(record.data), { owner, box });
  if (!judged.ok) return { invalid: { file, path, reason: judged.reason } };
  // The sender never records an acknowledgment; the inbox shows the recipient's (see withAck).
  const { acknowledged: _a, acknowledged_at: _at, ...message } = judged.value;
  return { signal: Object.freeze({ file, path, message: message as SignalMessage }) };
}

/** An inbox entry as the port shows it: `acknowledged` always set, `acknowledged_at` when it is true. */
export function withAck(entry: SignalEntry, ack: SignalAck | undefined): SignalEntry {
  const message = ack?.acknowledged
    ? { ...entry.message, acknowledged: true, acknowledged_at: ack.acknowledged_at }
    : { ...entry.message, acknowledged: false };
  return Object.freeze({ ...entry, message });
}

export function parseAck(bytes: Uint8Array): SignalAck | undefined {
  const judged = judgeAck(Buffer.from(bytes));
  return judged.ok ? judged.value : undefined;
}

/** Inbox order (the port's): by timestamp, then by handle, which is the order of arrival. */
export function compareEntries(a: SignalEntry, b: SignalEntry): number {
  if (a.message.timestamp !== b.message.timestamp) return a.message.timestamp < b.message.timestamp ? -1 : 1;
  return Number(a.file) - Number(b.file);
}

/** The KV key of a signal's acknowledgment: `<to>.<from>.<id>`, so counts per inbox and per outbox are subject counts. */
export const ackKey = (message: Pick<SignalMessage, 'to' | 'from' | 'id'>): string =>
  `${message.to}.${message.from}.${message.id}`;
