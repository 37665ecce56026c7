import { spawn } from 'node:child_process';
import { FedError } from '../errors.js';

/**
 * Reporting a lifecycle event the way any agent does: by running `fed event` (found on PATH, where
 * `fed launch` puts it) as a child process with an argument array — no shell. fed validates the event,
 * stamps its time and applies it; a refusal (say the team was paused meanwhile) ends the agent's run.
 */
export type ReportEvent = (type: string, data: Record<string, unknown>) => Promise<string>;

export class FedEventError extends FedError {
  constructor(message: string) {
    super('FED_EVENT_FAILED', message, { refusal: false });
  }
}

export interface FedEventOptions {
  root: string;
  team: string;
  /** The team workspace: `fed` run there knows its team even without the flags. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The `fed` executable (default: `fed` from PATH). */
  command?: string;
}

export function fedEventReporter(options: FedEventOptions): ReportEvent {
  const command = options.command ?? 'fed';
  return (type, data) =>
    new Promise((resolve, reject) => {
      const args = ['--root', options.root, 'event', '--team', options.team, type, '--data', JSON.stringify(data)];
      const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) => {
        reject(new FedEventError(error.code === 'ENOENT' ? `${command} is not on PATH; fed launch puts it there (run the agent through fed launch)` : `cannot run ${command}: ${error.message}`));
      });
      child.on('close', (code, signal) => {
        if (code === 0) resolve(stdout);
        else reject(new FedEventError(`fed event ${type} ${signal ? `was killed by ${signal}` : `exited ${code}`}: ${stderr.trim() || stdout.trim() || 'no output'}`));
      });
    });
}
