/**
 * Counting node:fs calls: every call of a node:fs function, by name and first argument. Counting all of
 * them (not a chosen few) is what catches a check, a config load or a listing repeated somewhere new on a
 * path. A test file mocks node:fs with the counting module (vi.mock is hoisted above its imports, so the
 * factory loads this module itself), then imports what it tests dynamically:
 *
 *     vi.mock('node:fs', async (importOriginal) => (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()));
 *     const { fedInProcess } = await import('../helpers/fed-in-process.js');
 *
 * This module imports nothing: it is loaded while node:fs is being mocked, and what it would import would
 * get the real node:fs, uncounted (fed-in-process.ts runs the CLI).
 */
import type * as NodeFs from 'node:fs';

/** One node:fs call: the function's name and its first argument as text (a path, or a descriptor's number). */
export interface FsCall {
  op: string;
  path: string;
}

const calls: FsCall[] = [];
let counting = false;

/**
 * node:fs with every function wrapped to record its calls while `counted` runs; `realpathSync.native`
 * counts as the `realpathSync` it stands for. Other properties of a function stay reachable, and
 * uncounted; classes (Dirent, Stats...) are left as they are.
 */
export function countingFs(real: typeof NodeFs): Record<string, unknown> {
  const wrapped: Record<string, unknown> = { ...real };
  const counted =
    (op: string, fn: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      if (counting) calls.push({ op, path: String(args[0]) });
      return fn(...args);
    };
  for (const [name, value] of Object.entries(real)) {
    if (typeof value !== 'function' || /^[A-Z]/.test(name)) continue;
    const fn = value as (...args: unknown[]) => unknown;
    wrapped[name] = Object.assign(counted(name, fn), fn);
  }
  wrapped.realpathSync = Object.assign(wrapped.realpathSync as object, {
    native: counted('realpathSync', real.realpathSync.native as (...args: unknown[]) => unknown),
  });
  return { ...wrapped, default: wrapped };
}

/** What `fn` returned and the node:fs calls made while it ran. */
export async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; calls: FsCall[] }> {
  if (counting) throw new Error('counted() does not nest');
  calls.length = 0;
  counting = true;
  try {
    const value = await fn();
    return { value, calls: [...calls] };
  } finally {
    counting = false;
  }
}

/**
 * The calls on a path: what a check, a load, a listing or a lock costs. Reads, writes, fsyncs and closes of
 * a descriptor already open are part of the open that made it, and not counted.
 */
export const onPaths = (recorded: readonly FsCall[]): FsCall[] => recorded.filter((c) => !/^\d+$/.test(c.path));
