import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { builtInAgentBin, packageBins, packageRoot } from 'fed/testing';
import { asUser, type UnprivilegedUser } from './unprivileged-user.js';

/**
 * A built command (`npm test` builds before running vitest): fed's, the script its package.json's `bin`
 * names, or the built-in agent's, its own package's (packages/fed-agent).
 */
export const builtBin = (name: 'fed' | 'fed-agent'): string =>
  name === 'fed' ? join(packageRoot(), packageBins().fed!) : builtInAgentBin()!;

/** The built CLI, run as a user would run `fed`. */
export const FED_BIN = builtBin('fed');

export interface FedResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface FedOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Uint8Array;
  timeoutMs?: number;
  /** Run as this user (the tests run as root: through runuser, unprivilegedRound's user). */
  user?: UnprivilegedUser;
}

export function runFed(args: readonly string[], options: FedOptions = {}): Promise<FedResult> {
  return new Promise((resolve, reject) => {
    // Tests choose the federation explicitly; an inherited FED_ROOT/FED_TEAM must not leak in.
    const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...options.env };
    const [command, ...argv] = asUser(options.user, [process.execPath, FED_BIN, ...args]);
    const child = spawn(command!, argv, { cwd: options.cwd, env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
