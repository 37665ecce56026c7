import { BROKER_ENV, BROKER_TOKEN_ENV, FedError, runCaptured, sendBrokerEvent } from 'fed/agent';

/**
 * Reporting a lifecycle event: launched by `fed launch`, to the launcher's broker (`FED_BROKER`), which
 * applies it as `fed event` does, as the team — no process is started for it; otherwise the way any agent
 * does, by running `fed event` (found on PATH) as a child process with an argument array — no shell.
 * Either way fed validates the event, stamps its time and applies it, and answers what `fed event`
 * prints; a refusal (say the team was paused meanwhile) ends the agent's run. `onSent` is called once the
 * event is on its way (handed to the launcher's socket, or its `fed event` started): an agent may go on
 * working while it is applied.
 */
export type ReportEvent = (type: string, data: Record<string, unknown>, onSent?: () => void) => Promise<string>;

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
  const socketPath = options.env[BROKER_ENV];
  if (socketPath) {
    const token = options.env[BROKER_TOKEN_ENV] ?? '';
    return async (type, data, onSent) => {
      const answer = await sendBrokerEvent(socketPath, { token, type, data }, onSent).catch((error: Error) => {
        throw new FedEventError(
          `fed event ${type}: cannot reach the launcher's broker at ${socketPath} (${BROKER_ENV}): ${error.message}`,
        );
      });
      if (answer.code === 0) return answer.stdout;
      throw new FedEventError(
        `fed event ${type} ${answer.code === undefined ? "was cut off: the launcher's broker closed the connection" : `exited ${answer.code}`}: ${answer.stderr.trim() || answer.stdout.trim() || 'no output'}`,
      );
    };
  }
  return (type, data, onSent) => {
    // The child is started before runFed first waits.
    const applied = runFed(
      options,
      ['event', '--team', options.team, type, '--data', JSON.stringify(data)],
      `fed event ${type}`,
    );
    onSent?.();
    return applied;
  };
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
