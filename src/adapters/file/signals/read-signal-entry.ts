import { join } from 'node:path';
import { judgeAck, judgeSignal, type BoxExpectation } from '../../../core/schema/judge-signal.js';
import { readValidFile } from './read-valid-file.js';
import { withAck } from './read-signals.js';
import { type SignalEntry } from '../../../ports/signal-transport.js';
import { ackFileName } from './signal-file-name.js';

/**
 * The valid signal `id` (any, without `id`) in file `file` of box folder `dir`, its ack merged in for an
 * inbox; undefined when the file is missing, not a valid signal, or another signal. For lookups that read
 * a few named files instead of the whole box.
 */
export function readSignalEntry(
  dir: string,
  file: string,
  expect: BoxExpectation,
  id?: string,
): SignalEntry | undefined {
  const path = join(dir, file);
  const message = readValidFile(path, (bytes) => judgeSignal(bytes, expect));
  if (!message || (id !== undefined && message.id !== id)) return undefined;
  if (expect.box === 'outbox') return { file, path, message };
  const ack = readValidFile(join(dir, ackFileName(file)), judgeAck);
  return { file, path, message: withAck(message, ack && { ok: true, value: ack }) };
}
