import { InvalidArgumentError } from 'commander';
import { DURATION_EXAMPLES, parseDuration, timerProblem, type TimerBounds } from '../core/schema/duration.js';
import { hostNameSchema } from '../core/schema/host.js';

/**
 * A commander option parser for a number > 0; `unit` names what it counts in the message
 * (`expected a number of seconds > 0`). Commander reports the failure as bad input (exit 2).
 */
export function positiveNumber(unit?: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`expected a number${unit ? ` of ${unit}` : ''} > 0`);
    return n;
  };
}

/**
 * A commander option parser for a path (`--out <dir>`, `--inspect-log <file>`): an empty one is refused
 * rather than taken as "not given" (the default: printing instead of writing, a temp directory, no log) or
 * as the current directory — it is a slip, most often an unset variable in `--out "$DIR"`.
 */
export function nonEmptyPath(kind: 'a file' | 'a folder'): (value: string) => string {
  return (value) => {
    if (value === '') throw new InvalidArgumentError(`expected ${kind}, got an empty path`);
    return value;
  };
}

/**
 * The bounds of an interval a command repeats its cycle at (`fed monitor --watch`, `fed chat bridge
 * --interval`): under 0.1 s the cycle would run again almost at once, a busy loop.
 */
export const REPEAT_INTERVAL: TimerBounds = {
  what: 'interval',
  min: { ms: 100, why: 'fed would repeat the cycle almost without pause' },
};

/**
 * A commander option parser for a number of seconds fed waits on a timer: > 0, within `bounds` and at most
 * MAX_TIMER_MS (24 days), which Node's timers hold. Out of them it is bad input (exit 2) saying how to fix it.
 */
export function timerSeconds(bounds: TimerBounds): (value: string) => number {
  const number = positiveNumber('seconds');
  return (value) => {
    const seconds = number(value);
    const problem = timerProblem(seconds * 1000, `${value} seconds`, bounds, { name: 'seconds', ms: 1000 });
    if (problem) throw new InvalidArgumentError(problem);
    return seconds;
  };
}

/** A commander option parser for one of a fixed set of names (bad input, exit 2, listing them). */
export function oneOf<T extends string>(names: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(names as readonly string[]).includes(value))
      throw new InvalidArgumentError(`expected one of ${names.join(', ')}`);
    return value as T;
  };
}

/**
 * A commander option parser for a duration with a unit (`30m`, `7d`), in milliseconds. With `timer`, fed
 * waits that long on a timer: the duration must be within those bounds and at most MAX_TIMER_MS (24 days).
 */
export function duration(timer?: TimerBounds): (value: string) => number {
  return (value) => {
    const ms = parseDuration(value);
    if (ms === undefined)
      throw new InvalidArgumentError(`expected a duration > 0 with a unit such as ${DURATION_EXAMPLES}`);
    const problem = timer && timerProblem(ms, value, timer);
    if (problem) throw new InvalidArgumentError(problem);
    return ms;
  };
}

/**
 * A commander option parser for a whole number > 0 (`--teams 3`, `--parallel 2`, `--count 5`), written in
 * decimal digits only: `1e3`, `0x10` and `2.0` are refused, not quietly read as numbers.
 */
export function positiveInteger(unit: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0)
      throw new InvalidArgumentError(`expected a whole number of ${unit} > 0`);
    return n;
  };
}

/** A commander option parser for a TCP port: 0 (a free one) to 65535, in decimal digits. */
export function portNumber(): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
    return n;
  };
}

/** A commander option parser for a host name as the hosts of a federation are named (core/schema/host.ts). */
export function hostName(): (value: string) => string {
  return (value) => {
    const parsed = hostNameSchema.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]!.message);
    return value;
  };
}
