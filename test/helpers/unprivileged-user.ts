import { execFileSync } from 'node:child_process';
import { constants, lchownSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from 'fed/testing';
import { skipWithout } from './loud-skip.js';

/** A user without privileges, to run fed as when the tests run as root (as in Docker). */
export interface UnprivilegedUser {
  name: string;
  uid: number;
  gid: number;
}

/** The user the hostile-agent tests run their second round as. */
export const HOSTILE_USER = 'fed-hostile';

/**
 * The unprivileged user `name` — created (no home, no login shell) when it does not exist yet — to run the
 * round of a test that must hold for such a user too; undefined when the tests do not run as root (they
 * run unprivileged already: that round is this one); or what is missing for it: a user root cannot
 * create, or fed's package out of other users' reach (a folder above it not searchable by others).
 */
export function unprivilegedUser(name = HOSTILE_USER): UnprivilegedUser | { missing: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const unreachable = notSearchable(packageRoot());
  if (unreachable)
    return {
      missing: `${name} cannot run fed from ${packageRoot()}: ${unreachable} is not searchable by others (chmod o+x)`,
    };
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: 'pipe' }).trim());
  try {
    return { name, uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', name], { stdio: 'pipe' });
    } catch (error) {
      // Another test file may have created it meanwhile.
      try {
        return { name, uid: id('-u'), gid: id('-g') };
      } catch {
        return { missing: `cannot create the user ${name}: ${(error as Error).message}` };
      }
    }
    return { name, uid: id('-u'), gid: id('-g') };
  }
}

/**
 * The unprivileged user a suite's second round runs as, when the tests run as root; undefined when they
 * do not (this run is the unprivileged one), or when the user cannot be had: then said loudly, and under
 * CI a failure (loud-skip.ts).
 */
export function unprivilegedRound(suite: string): UnprivilegedUser | undefined {
  const user = unprivilegedUser();
  if (user === undefined) return undefined;
  if ('missing' in user) {
    skipWithout(suite, user.missing);
    return undefined;
  }
  return user;
}

/** The first folder at or above `folder` that other users cannot search, if any. */
function notSearchable(folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & constants.S_IXOTH) === 0) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

/**
 * Give the directory tree `dir` to `user` (a federation the user will launch in), after checking that the
 * user can reach it: every parent must be searchable by others, or the user's processes fail with EACCES
 * far from the cause.
 */
export function handOver(dir: string, user: UnprivilegedUser): void {
  const unreachable = notSearchable(dirname(dir));
  if (unreachable)
    throw new Error(`${user.name} cannot reach ${dir}: ${unreachable} is not searchable by others (chmod o+x)`);
  const chownTree = (path: string) => {
    // A symlink is given over itself (lchown): what it points at is not the federation's.
    lchownSync(path, user.uid, user.gid);
    if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry));
  };
  chownTree(dir);
}

/**
 * The command line that runs `argv` as `user` (root only): runuser keeps the environment it is given but
 * HOME (and the user's name and shell), which `home` sets again when given.
 */
export function asUser(user: UnprivilegedUser | undefined, argv: readonly string[], home?: string): string[] {
  if (!user) return [...argv];
  return ['runuser', '-u', user.name, '--', ...(home ? ['env', `HOME=${home}`] : []), ...argv];
}
