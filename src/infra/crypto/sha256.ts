import { createHash } from 'node:crypto';
import { sha256 as sha256InJavaScript } from '@noble/hashes/sha2.js';

/**
 * Below this many bytes, hashing in JavaScript beats loading node:crypto (~2.5 ms of the process's own
 * time, the ~3 ms of random.ts counting what it costs a command end to end) and hashing natively, in a
 * command whose code is not yet warm: 0.5 ms for a report's 200 bytes, 1.9 ms for 2 KB, 3.2 ms for 4 KB.
 * A large registry is hashed natively.
 */
const NATIVE_FROM_BYTES = 2048;

/** The SHA-256 of `data` (a string as UTF-8): the same digest whichever way it is computed. */
export function sha256(data: string | Uint8Array): Buffer {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  if (size >= NATIVE_FROM_BYTES) return createHash('sha256').update(data).digest();
  const digest = sha256InJavaScript(typeof data === 'string' ? Buffer.from(data) : data);
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength);
}
