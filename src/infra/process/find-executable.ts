import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { FED_DIR } from '../../core/layout.js';
import { isFolder } from '../fs/path-kind.js';

/**
 * Where fed finds the programs it runs itself, outside any sandbox — bwrap, git, an agent CLI: never in a
 * place a sandboxed agent can write. Such an agent writes only a federation's `.fed/` folders (its team's
 * workspace or worktree, its own home there, its git store), a coding team's worktree folder in the
 * repository's `.git` (`.git/worktrees/<name>`) and, when `agent.home` puts the homes elsewhere, that folder (`writable`);
 * its temp dirs and the rest of the machine are its own or read-only (src/apps/launch/prepare/sandbox/sandbox.ts). A
 * program there — or a link to one — planted as `bwrap` or `git` on the launcher's PATH would run with the
 * user's rights, and with no sandbox: it is left out, and named when nothing else is found.
 */
export interface FoundExecutable {
  /** The program, an absolute path, or undefined when none was found outside the agents' reach. */
  path: string | undefined;
  /** Programs of that name that were left out: a sandboxed agent can write where they are. */
  leftOut: string[];
  /** Folders of that name that were passed over: executable for access(2), but no program. */
  folders: string[];
}

/** `path`, links resolved, lies in a folder a sandboxed agent can write: a `.fed` or `.git` folder, or inside one of `writable`. */
export function writableByAgents(path: string, writable: readonly string[] = []): boolean {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = resolve(path);
  }
  return [resolve(path), real].some(
    (candidate) =>
      candidate.split(sep).some((part) => part === FED_DIR || part === '.git') ||
      writable.some((folder) => candidate === folder || candidate.startsWith(`${folder}${sep}`)),
  );
}

/**
 * `name` as fed would execute it: a path (absolute, or relative to `cwd`) when it has a `/`, else the first
 * executable of that name on `env.PATH` that no sandboxed agent can write — or in `trusted`, the folder of
 * fed's own commands that the launch has just written (src/apps/launch/supervise/command-shims.ts).
 */
export function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { cwd?: string; writable?: readonly string[]; trusted?: string } = {},
): FoundExecutable {
  const candidates = name.includes('/')
    ? [isAbsolute(name) ? name : resolve(options.cwd ?? process.cwd(), name)]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, name));
  const leftOut: string[] = [];
  const folders: string[] = [];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // A folder passes the X_OK check (it is searchable) but cannot be run.
    if (isFolder(candidate)) folders.push(candidate);
    else if (dirname(candidate) !== options.trusted && writableByAgents(candidate, options.writable))
      leftOut.push(candidate);
    else return { path: candidate, leftOut, folders };
  }
  return { path: undefined, leftOut, folders };
}

/** Why the programs found were not run, for a message: empty when none was left out nor passed over. */
export function leftOutReason(found: Pick<FoundExecutable, 'leftOut' | 'folders'>): string {
  const reasons = [
    ...(found.leftOut.length
      ? [`left out: ${found.leftOut.join(', ')} — a sandboxed agent can write there, so fed never runs it`]
      : []),
    ...(found.folders.length ? [`passed over: ${found.folders.join(', ')} — a directory, not a program`] : []),
  ];
  return reasons.length ? ` (${reasons.join('; ')})` : '';
}
