import { execFileSync } from 'node:child_process';
import { constants, lchownSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A user without privileges, to run fed as when the tests run as root (as in Docker). */
export interface UnprivilegedUser {
  name: string;
  uid: number;
  gid: number;
}

/** The user the hostile-agent tests run their second round as. */
export const HOSTILE_USER = 'fed-hostile';

/**
 * The unprivileged user `name` — created (no home, no login shell) when it does not exist yet — or why
 * there is none: only root can create users and switch to them, so a test run that is not root already
 * runs unprivileged and needs no second user.
 */
export function unprivilegedUser(name = HOSTILE_USER): UnprivilegedUser | { missing: string } {
  if (process.getuid?.() !== 0) return { missing: 'the tests do not run as root (they already run unprivileged)' };
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
 * Give the directory tree `dir` to `user` (a federation the user will launch in), after checking that the
 * user can reach it: every parent must be searchable by others, or the user's processes fail with EACCES
 * far from the cause.
 */
export function handOver(dir: string, user: UnprivilegedUser): void {
  for (let parent = dirname(dir); ; parent = dirname(parent)) {
    if ((statSync(parent).mode & constants.S_IXOTH) === 0)
      throw new Error(`${user.name} cannot reach ${dir}: ${parent} is not searchable by others (chmod o+x)`);
    if (parent === dirname(parent)) break;
  }
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
