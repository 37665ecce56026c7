import { execFileSync } from 'node:child_process';

/**
 * Run git with an argument array (never a shell string) and return its stdout, trimmed unless `raw`
 * (porcelain formats start with significant spaces); throws with stderr.
 */
export function git(cwd: string, args: readonly string[], options: { raw?: boolean } = {}): string {
  try {
    const out = execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    return options.raw ? out : out.trim();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new GitCommandError(args, stderr || (error as Error).message);
  }
}

export class GitCommandError extends Error {
  readonly stderr: string;

  constructor(args: readonly string[], stderr: string) {
    super(`git ${args.join(' ')} failed: ${stderr}`);
    this.name = 'GitCommandError';
    this.stderr = stderr;
  }
}

export function gitSucceeds(cwd: string, args: readonly string[]): boolean {
  try {
    git(cwd, args);
    return true;
  } catch (error) {
    if (error instanceof GitCommandError) return false;
    throw error;
  }
}
