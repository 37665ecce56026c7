import { randomFillSync } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { v4 as uuidv4 } from 'uuid';

/**
 * Random bytes and ids (lock tokens, temp file names, signal ids) without loading node:crypto: loading it
 * brings its ciphers, key handling and streams, ~3 ms of a command that needs a few random bytes (`fed
 * event` over 1 000 teams went from 1.79× a bare node start to 1.73× without it). The bytes come from the
 * kernel's generator, the one node:crypto's own is seeded from, read from /dev/urandom a pool at a time;
 * where that is not the kernel's device (Windows, a sandbox without /dev, a file put in its place), from
 * node:crypto. Secrets compared in constant time (the dashboard's and the broker's tokens) are made with
 * node:crypto, which those servers load anyway.
 */
const POOL_BYTES = 256;

let pool = Buffer.alloc(0);
let taken = 0;

/** `size` fresh random bytes: no two calls share any. */
export function randomBytes(size: number): Buffer {
  if (taken + size > pool.length) refill(Math.max(POOL_BYTES, size));
  const bytes = Buffer.from(pool.subarray(taken, taken + size));
  taken += size;
  return bytes;
}

/** A random (version 4) UUID. */
export function randomUuid(): string {
  return uuidv4({ random: randomBytes(16) });
}

function refill(size: number): void {
  const fresh = Buffer.alloc(size);
  if (process.platform === 'win32' || !readKernelRandom(fresh)) randomFillSync(fresh);
  pool = fresh;
  taken = 0;
}

/** Fills `into` from /dev/urandom; false where it is no device, or cannot be opened or read whole. */
function readKernelRandom(into: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync('/dev/urandom', 'r');
  } catch {
    return false;
  }
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
    for (let filled = 0; filled < into.length;) {
      const read = readSync(fd, into, filled, into.length - filled, null);
      if (read === 0) return false;
      filled += read;
    }
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
