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
    error: (issue) => `expected a duration with a unit such as ${DURATION_EXAMPLES}, got ${describeValue(issue.input)}`,
  });
