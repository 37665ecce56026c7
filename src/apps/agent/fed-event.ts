import { FedError } from '../../core/errors.js';
import { runCaptured } from '../../infra/process/run-captured.js';

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
  return (type, data) =>
    runFed(options, ['event', '--team', options.team, type, '--data', JSON.stringify(data)], `fed event ${type}`);
}

/** Run one `fed` command for the team (`--root` given), returning its stdout; a failure throws with its stderr. */
export async function runFed(
  options: FedEventOptions,
  args: readonly string[],
  what = `fed ${args[0]}`,
): Promise<string> {
  const command = options.command ?? 'fed';
  const run = await runCaptured([command, '--root', options.root, ...args], { cwd: options.cwd, env: options.env });
  if (run.error) {
    throw new FedEventError(
      run.error.code === 'ENOENT'
        ? `${command} is not on PATH; fed launch puts it there (run the agent through fed launch)`
        : `cannot run ${command}: ${run.error.message}`,
    );
  }
  if (run.code !== 0)
    throw new FedEventError(
      `${what} ${run.signal ? `was killed by ${run.signal}` : `exited ${run.code}`}: ${run.stderr.trim() || run.stdout.trim() || 'no output'}`,
    );
  return run.stdout;
}
