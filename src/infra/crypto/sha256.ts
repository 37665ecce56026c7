import { createHash } from 'node:crypto';
import { sha256 as sha256InJavaScript } from '@noble/hashes/sha2.js';

/**
 * Below this many bytes, hashing in JavaScript beats loading node:crypto (~2.5 ms in the process, see
 * random.ts) and hashing natively, in a command whose code is not yet warm: 0.5 ms for a report's 200
 * bytes, 1.9 ms for 2 KB, 3.2 ms for 4 KB. A registry or a deliverable is hashed natively.
 */
const NATIVE_FROM_BYTES = 2048;

/** The SHA-256 of `data` (a string as UTF-8): the same digest whichever way it is computed. */
export function sha256(data: string | Uint8Array): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  if (bytes.length >= NATIVE_FROM_BYTES) return createHash('sha256').update(bytes).digest();
  const digest = sha256InJavaScript(bytes);
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength);
}
