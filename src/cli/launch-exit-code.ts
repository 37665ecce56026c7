import type { LaunchResult } from '../engine/hooks/federation-hooks.js';

/** A team's launch paused, to be resumed (a rate limit, a turn or cost limit, a timeout, Ctrl-C). */
export const EXIT_PAUSED = 3;

/**
 * The exit code of `fed launch` and `fed run`, one rule for both, from how each team's launch ended: 0
 * when every one is complete or waiting on a person, 1 when any failed, 3 when any is paused (resumable)
 * and none failed. Bad input, or a launch refused before it started, is 2 — the CLI's rule for errors.
 */
export function launchExitCode(ended: Iterable<LaunchResult['outcome']>): number {
  const outcomes = new Set(ended);
  if (outcomes.has('failed')) return 1;
  if (outcomes.has('paused')) return EXIT_PAUSED;
  return 0;
}

/** The rule, as `fed launch --help` and `fed run --help` end with it. */
export const LAUNCH_EXIT_CODES_HELP =
  '\nExit codes: 0 every team complete or waiting on a person, 1 any failed, 3 any paused (resumable: a rate limit, a limit, a timeout, Ctrl-C) and none failed, 2 bad input or refused.\n';
