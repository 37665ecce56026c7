import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { findExecutable, leftOutReason } from '../../infra/process/find-executable.js';

const execFileAsync = promisify(execFile);

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
 * (porcelain formats start with significant spaces); throws with stderr.
 */
export function git(cwd: string, args: readonly string[], options: { raw?: boolean } = {}): string {
  try {
    const out = execFileSync(gitProgram(), args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    return options.raw ? out : out.trim();
  } catch (error) {
    throw gitFailure(args, error);
  }
}

/**
 * A git that talks to a remote (ls-remote, fetch, push), run without blocking: a server's heartbeat goes
 * on while it waits on the network. Killed after `timeoutMs`, and never waiting for a password nobody
 * types (no terminal prompt), so an unreachable remote is an answer, not a hang. Its stdout, trimmed.
 */
export async function gitRemote(cwd: string, args: readonly string[], timeoutMs: number): Promise<string> {
  try {
    const { stdout } = await execFileAsync(gitProgram(), args, {
      cwd,
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
    return stdout.trim();
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
    // A killed git answered nothing: that is no "no".
    if (error instanceof GitCommandError && !error.killedBy) return false;
    throw error;
  }
}
