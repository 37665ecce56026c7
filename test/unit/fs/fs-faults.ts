/**
 * node:fs for the tests of src/infra/fs that need what real files cannot give a root user on a healthy
 * disk — a failing fsync, write, link, mkdir, read or close (EIO, ENOSPC, EROFS…), a short read, a file that
 * grows between its fstat and its read — or that look at what was fsynced. A test file mocks node:fs with
 * it (vi.mock is hoisted above the imports, so the factory loads this module itself), then imports what it
 * tests dynamically:
 *
 *     vi.mock('node:fs', async (importOriginal) => (await import('./fs-faults.js')).faultyFs(await importOriginal()));
 *
 * Each test sets `hooks` for the calls it changes and `resetFaults` (afterEach) clears them; every other
 * call is the real one. This module imports nothing: it is loaded while node:fs is being mocked.
 */
import type * as NodeFs from 'node:fs';

/** A stand-in for one node:fs function: it gets the real function and the call's arguments. */
export type Hook = (real: (...args: unknown[]) => unknown, ...args: unknown[]) => unknown;

const HOOKED = [
  'openSync',
  'fstatSync',
  'readSync',
  'writeSync',
  'fsync',
  'fsyncSync',
  'closeSync',
  'linkSync',
  'mkdirSync',
  'readFileSync',
  'watch',
] as const;

export const hooks: Partial<Record<(typeof HOOKED)[number], Hook>> = {};

let realFs: typeof NodeFs | undefined;

export function faultyFs(real: typeof NodeFs): Record<string, unknown> {
  realFs = real;
  const wrapped: Record<string, unknown> = { ...real };
  for (const name of HOOKED) {
    const fn = real[name] as (...args: unknown[]) => unknown;
    wrapped[name] = (...args: unknown[]) => {
      const hook = hooks[name];
      return hook ? hook(fn, ...args) : fn(...args);
    };
  }
  return { ...wrapped, default: wrapped };
}

export function resetFaults(): void {
  for (const name of HOOKED) delete hooks[name];
}

/** The path a descriptor is open on, as the kernel names it. */
export function pathOf(fd: unknown): string {
  return realFs!.readlinkSync(`/proc/self/fd/${String(fd)}`);
}

/** An error as node:fs throws it for a failed system call. */
export function errnoError(code: string, syscall: string, path?: string): NodeJS.ErrnoException {
  const where = path === undefined ? '' : `, ${syscall} '${path}'`;
  return Object.assign(new Error(`${code}: injected${path === undefined ? `, ${syscall}` : where}`), {
    code,
    syscall,
    ...(path === undefined ? {} : { path }),
  });
}

/** Record the path of every descriptor fsynced (sync or on the thread pool) into the list returned. */
export function recordFsyncs(): string[] {
  const synced: string[] = [];
  hooks.fsyncSync = (real, fd) => {
    synced.push(pathOf(fd));
    return real(fd);
  };
  hooks.fsync = (real, fd, callback) => {
    synced.push(pathOf(fd));
    return real(fd, callback);
  };
  return synced;
}
