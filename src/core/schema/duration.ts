import ms from 'ms';
import { z } from 'zod';
import { describeValue } from './problems.js';

/**
 * A duration as people write it in a config or on the command line: a number with a unit, parsed by the
 * `ms` library (`90s`, `30m`, `1.5h`, `7d`, `2 weeks`). A bare number is refused: "30" could mean seconds
 * or minutes, and a wrong guess would expire signals a thousand times too early.
 */
export const DURATION_EXAMPLES = '30m, 2h, 7d';

/** Milliseconds of `text`, or undefined when it is not a positive duration with a unit. */
export function parseDuration(text: string): number | undefined {
  if (!/[a-z]/i.test(text)) return undefined;
  let value: number | undefined;
  try {
    value = ms(text as ms.StringValue);
  } catch {
    return undefined;
  }
  return Number.isFinite(value) && value! > 0 ? value : undefined;
}

export const durationSchema = z
  .string({ error: (issue) => `expected a duration such as ${DURATION_EXAMPLES}, got ${describeValue(issue.input)}` })
  .refine((text) => parseDuration(text) !== undefined, {
    error: (issue) =>
      `expected a duration > 0 with a unit such as ${DURATION_EXAMPLES}, got ${describeValue(issue.input)}`,
  });

/**
 * The longest fed waits on one timer: 24 days. Node's timers hold at most 2^31-1 ms (about 24.8 days); a
 * longer delay prints a TimeoutOverflowWarning and fires after 1 ms, so an interval past it would repeat
 * its cycle without pause. Every option and config field that ends up as a timer's delay is refused above
 * this (timerProblem), before anything runs.
 */
export const MAX_TIMER_MS = 24 * 86_400_000;

/** What a timer's delay may be besides > 0 and at most MAX_TIMER_MS, and what to call it in the advice. */
export interface TimerBounds {
  /** What the value is, in the advice how to fix it: `give a shorter <what>` ("interval", "timeout"). */
  what: string;
  /** The shortest accepted, with why: where a tiny delay would be a busy loop. */
  min?: { ms: number; why: string };
  /** A longest below MAX_TIMER_MS, with why (the timer it ends up in is a multiple of it). */
  max?: { ms: number; why: string };
}

/** `ms` as people read it: `100 ms`, `1 second`, `24 days`. */
export function describeMs(value: number): string {
  return ms(value, { long: true });
}

/**
 * Why a delay of `delayMs` — written `given` ("3000000 seconds", "30d") — cannot be a timer's within
 * `bounds`, as a sentence that says how to fix it; undefined when it can. `unit` adds the bound in the
 * unit the value was given in ("24 days, 2073600 seconds").
 */
export function timerProblem(
  delayMs: number,
  given: string,
  bounds: TimerBounds,
  unit?: { name: string; ms: number },
): string | undefined {
  const inUnit = (value: number) => (unit ? `${value / unit.ms} ${unit.name}` : describeMs(value));
  const withUnit = (value: number) => (unit ? `${describeMs(value)}, ${inUnit(value)}` : describeMs(value));
  const max = bounds.max ?? { ms: MAX_TIMER_MS, why: '' };
  if (delayMs > max.ms)
    return `${given} is longer than fed can wait (at most ${withUnit(max.ms)}${max.why ? `: ${max.why}` : ''}); give a shorter ${bounds.what}`;
  if (bounds.min && delayMs < bounds.min.ms)
    return `${given} is too short (at least ${inUnit(bounds.min.ms)}: ${bounds.min.why}); give a longer ${bounds.what}`;
  return undefined;
}

/** A config field that is a timer's delay: a duration with a unit, within `bounds` (the config error names the field). */
export function timerDurationSchema(bounds: TimerBounds) {
  return durationSchema.superRefine((text, context) => {
    const delayMs = parseDuration(text);
    const problem = delayMs === undefined ? undefined : timerProblem(delayMs, text, bounds);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * A config field that is a timer's delay in seconds: a number > 0 within `bounds`, at most MAX_TIMER_MS (a
 * refinement, not `.max()`: its message says how to fix it, where a bound's would be rewritten as "expected
 * at most ..." by zodProblems).
 */
export function timerSecondsSchema(bounds: TimerBounds) {
  const problem = (seconds: number) =>
    timerProblem(seconds * 1000, `${seconds} seconds`, bounds, { name: 'seconds', ms: 1000 });
  return z
    .number({ error: (issue) => `expected a number of seconds, got ${describeValue(issue.input)}` })
    .positive({ error: (issue) => `expected a number of seconds > 0, got ${describeValue(issue.input)}` })
    .refine((seconds) => !(seconds > 0) || problem(seconds) === undefined, {
      error: (issue) => problem(issue.input as number),
    });
}
