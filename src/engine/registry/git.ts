import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { findExecutable, leftOutReason } from '../../infra/process/find-executable.js';
import { CONFIG_LISTING_ARGS, needsConfigListing, safeArgs, safeEnv } from './git-safety.js';

/** git as found on PATH, once per PATH: never one a sandboxed agent could have planted (find-executable.ts). */
let found: { path: string | undefined; for: string | undefined; why: string } | undefined;

function gitProgram(): string {
  const path = process.env.PATH;
  let git = found;
  if (git?.for !== path) {
    const lookup = findExecutable('git', process.env);
    git = found = { path: lookup.path, for: path, why: leftOutReason(lookup) };
  }
  if (git?.path === undefined) throw new Error(`git is not installed or not on PATH${git?.why ?? ''}`);
  return git.path;
}

/**
 * Run git with an argument array (never a shell string) and return its stdout, trimmed unless `raw`
 * (porcelain formats start with significant spaces); throws with stderr. Every git fed runs — this, and
 * the asynchronous ones below — ignores what a repository's or worktree's config could make it run
 * (git-safety.ts): before a command that may run drivers, the config is listed to switch them off.
 */
export function git(cwd: string, args: readonly string[], options: { raw?: boolean } = {}): string {
  const run = (argv: readonly string[]) =>
    execFileSync(gitProgram(), argv, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
      env: safeEnv(process.env),
    });
  try {
    const listing = needsConfigListing(args) ? run(['--no-pager', ...CONFIG_LISTING_ARGS]) : undefined;
    const out = run(safeArgs(args, listing));
    return options.raw ? out : out.trim();
  } catch (error) {
    throw gitFailure(args, error);
  }
}

/**
 * git run without blocking the event loop: a long-lived process (fed serve, fed ui) goes on with its
 * heartbeat, its actors and its dashboard while git works — a `git status` of a large codebase takes
 * seconds. Its stdout, trimmed unless `raw`; throws with stderr, as `git` does.
 */
export async function gitAsync(cwd: string, args: readonly string[], options: { raw?: boolean } = {}): Promise<string> {
  const out = await runGitAsync(cwd, args, {});
  return options.raw ? out : out.trim();
}

/**
 * A git that talks to a remote (ls-remote, fetch, push), run without blocking: a server's heartbeat goes
 * on while it waits on the network. Killed after `timeoutMs`, and never waiting for a password nobody
 * types (no terminal prompt), so an unreachable remote is an answer, not a hang. Its stdout, trimmed.
 */
export async function gitRemote(cwd: string, args: readonly string[], timeoutMs: number): Promise<string> {
  // Never waiting for a password: FORCED_ENV turns git's terminal prompt off for every git fed runs.
  const out = await runGitAsync(cwd, args, { timeout: timeoutMs });
  return out.trim();
}

async function runGitAsync(cwd: string, args: readonly string[], options: { timeout?: number }): Promise<string> {
  try {
    // Promisified here, not as the module loads: reading `execFile` loads child_process (the bundles load
    // Node's modules lazily, scripts/bundle-settings.mjs), which a command that runs no git — `fed monitor`,
    // every `fed event` — would otherwise load at start-up.
    const run = async (argv: readonly string[]) => {
      const running = promisify(execFile)(gitProgram(), argv, {
        cwd,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        ...options,
        env: safeEnv(process.env),
      });
      // Nothing is written to git: a command that would read its input gets the end of it at once (as the
      // synchronous git's ignored stdin gives), never a pipe left open for good.
      running.child.stdin?.end();
      return (await running).stdout;
    };
    const listing = needsConfigListing(args) ? await run(['--no-pager', ...CONFIG_LISTING_ARGS]) : undefined;
    return await run(safeArgs(args, listing));
  } catch (error) {
    throw gitFailure(args, error);
  }
}

function gitFailure(args: readonly string[], error: unknown): GitCommandError {
  const { stderr, signal } = error as { stderr?: unknown; signal?: NodeJS.Signals | null };
  return new GitCommandError(args, String(stderr ?? '').trim() || (error as Error).message, signal ?? undefined);
}

export class GitCommandError extends Error {
  readonly stderr: string;
  /** The signal that ended git (killed by a person, the OOM killer, a shutdown): no fault of its input. */
  readonly killedBy: NodeJS.Signals | undefined;

  constructor(args: readonly string[], stderr: string, killedBy?: NodeJS.Signals) {
    super(killedBy ? `git ${args.join(' ')} was killed (${killedBy})` : `git ${args.join(' ')} failed: ${stderr}`);
    this.name = 'GitCommandError';
    this.stderr = stderr;
    this.killedBy = killedBy;
  }
}

export function gitSucceeds(cwd: string, args: readonly string[]): boolean {
  try {
    git(cwd, args);
    return true;
  } catch (error) {
    return failedAnswer(error);
  }
}

/** gitSucceeds beside the event loop (gitAsync). */
export async function gitSucceedsAsync(cwd: string, args: readonly string[]): Promise<boolean> {
  try {
    await gitAsync(cwd, args);
    return true;
  } catch (error) {
    return failedAnswer(error);
  }
}

/** A git that failed answered "no"; one killed answered nothing, and that is thrown. */
function failedAnswer(error: unknown): false {
  if (error instanceof GitCommandError && !error.killedBy) return false;
  throw error;
}
