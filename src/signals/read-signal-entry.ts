import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suffixedName } from '../fs/atomic-write.js';
import { judgeAck, judgeSignal, type BoxExpectation } from '../schema/judge-signal.js';
import { readValidFile } from './delivery/read-valid-file.js';
import { withAck, type SignalEntry } from './read-signals.js';
import { ackFileName } from './signal-file-name.js';

/**
 * The valid signal `id` in file `file` of box folder `dir`, its ack merged in for an inbox; undefined when
 * the file is missing, not a valid signal, or another signal. For lookups by id that read a few named
 * files instead of the whole box.
 */
export function readSignalEntry(dir: string, file: string, expect: BoxExpectation, id: string): SignalEntry | undefined {
  const path = join(dir, file);
  const message = readValidFile(path, (bytes) => judgeSignal(bytes, expect));
  if (!message || message.id !== id) return undefined;
  if (expect.box === 'outbox') return { file, path, message };
  const ack = readValidFile(join(dir, ackFileName(file)), judgeAck);
  return { file, path, message: withAck(message, ack && { ok: true, value: ack }) };
}

/**
 * The first file of the run `name`, `name-2`, `name-3`, … in box folder `dir` (signals of one second, type
 * and subject) that `read` accepts, looking up to the first free name — a no-clobber publish takes the
 * suffixes in order — or `maxNames` names. `read` checks each file's content: a name is never trusted.
 */
export function findInNameRun<T>(dir: string, name: string, read: (file: string) => T | undefined, maxNames = Number.POSITIVE_INFINITY): T | undefined {
  for (let attempt = 1; attempt <= maxNames; attempt++) {
    const file = attempt === 1 ? name : suffixedName(name, attempt);
    const found = read(file);
    if (found !== undefined) return found;
    if (!existsSync(join(dir, file))) return undefined;
  }
  return undefined;
}
