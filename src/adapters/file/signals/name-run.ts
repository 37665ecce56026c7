import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { suffixedName } from '../../../infra/fs/atomic-write.js';

/**
 * A run of same-named signals in a box folder: `name`, then `name-2`, `name-3`, … — the names of one
 * second, type and subject, which a no-clobber publish takes one after another.
 */

/**
 * The first n ≥ 2 whose `suffixedName(name, n)` is free in `dir`, `name` itself being taken: where a
 * publish tries next. A burst of same-second, same-subject signals would cost quadratic time probed one
 * by one, so the search gallops over the taken names (existence checks, ~1 µs each). It is only a hint
 * for the publish — the hard link decides, and a name taken meanwhile moves on to the next one.
 */
export function firstFreeSuffix(dir: string, name: string): number {
  const taken = (n: number) => existsSync(join(dir, suffixedName(name, n)));
  let low = 1;
  let high = 2;
  while (taken(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (taken(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/** `<name>-<n>.json` (n ≥ 2): a later name of a run. */
const LATER_IN_RUN = /^(.+)-([1-9]\d*)(\.json)$/;

/**
 * The name a run starts with, when `name` reads as a later name of one (`…-mission-2.json` →
 * `…-mission.json`); undefined otherwise. From the name alone: a subject that ends in a number reads the
 * same, so a caller takes it as a hint, never as proof.
 */
export function runStart(name: string): string | undefined {
  const later = LATER_IN_RUN.exec(name);
  return later && Number(later[2]) >= 2 ? `${later[1]}${later[3]}` : undefined;
}

/** What a `findInNameRun` reader may return for a file that is not there (instead of undefined). */
export const ABSENT: unique symbol = Symbol('absent');

/**
 * The first file of the run of `name` in box folder `dir` that `read` accepts, reading at most `maxNames`
 * names. The run reaches as far as a publish would look for a free name now (firstFreeSuffix), past
 * names that are gone: an archived or quarantined signal leaves a gap that a later publish jumps over.
 * `read` checks each file's content; a name is never trusted.
 */
export function findInNameRun<T>(
  dir: string,
  name: string,
  read: (file: string) => T | undefined | typeof ABSENT,
  maxNames = Number.POSITIVE_INFINITY,
): T | undefined {
  const first = read(name);
  // A run starts at `name`: when it is not taken, there is no run (a reader that says so spares a stat).
  if (first === ABSENT) return undefined;
  if (first !== undefined || !existsSync(join(dir, name))) return first;
  const end = firstFreeSuffix(dir, name);
  for (let n = 2; n < end && n <= maxNames; n++) {
    const found = read(suffixedName(name, n));
    if (found !== undefined && found !== ABSENT) return found;
  }
  return undefined;
}
