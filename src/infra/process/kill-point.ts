/**
 * The environment variable naming a kill point: crash tests set it to make a fed command die there.
 * Never set in normal use; nothing else reads it.
 */
export const KILL_POINT_ENV = 'FED_TEST_KILL_POINT';

/**
 * Die here — SIGKILL, no cleanup, as a power cut or the OOM killer would — when `env` names this kill
 * point. Crash tests put a multi-step command through every point to show that running it again
 * finishes what the killed run began, exactly once.
 */
export function killPoint(env: NodeJS.ProcessEnv, name: string): void {
  if (env[KILL_POINT_ENV] === name) process.kill(process.pid, 'SIGKILL');
}
