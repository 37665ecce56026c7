/**
 * The pieces of the quick checks of parsed JSON that stand in front of a zod schema where many files are
 * read (isWellFormedEnvelope, the archetypes' isWellFormedContext): each accepts only what the matching
 * zod schema accepts, with the value the schema would give, and leaves the rest to the schema.
 */

/** An object (not an array) whose own keys are all among `keys`: what a strict object lets through. */
export function hasOnlyKeys(value: unknown, keys: ReadonlySet<string>): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // An own `__proto__` key JSON.parse made is listed too, and is in no key set.
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

export function isArrayOf(value: unknown, item: (value: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  // By index, as the schema reads it: a hole is an undefined item (every() would skip it).
  for (let i = 0; i < value.length; i++) if (!item(value[i])) return false;
  return true;
}

export const isString = (value: unknown): value is string => typeof value === 'string';

/** z.string().min(1): one UTF-16 unit is one code point, the unit zod counts in. */
export const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** z.number(): finite. */
export const isFiniteNumber = (value: unknown): value is number => Number.isFinite(value);

/** z.number().int() (a safe integer) and at least `least`: `.nonnegative()` is 0, `.positive()` 1. */
export const isCount = (value: unknown, least: 0 | 1): boolean =>
  Number.isSafeInteger(value) && (value as number) >= least;

/** `.nullable()` of a check. */
export const orNull =
  (check: (value: unknown) => boolean) =>
  (value: unknown): boolean =>
    value === null || check(value);

/** z.string().nullable(). */
export const isStringOrNull = orNull(isString);

/** z.record(z.string(), …): a plain object whose every own key is a string, each value passing `check`. */
export function isRecordOf(value: unknown, check: (value: unknown) => boolean): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  // An own `__proto__` key (which the schema skips) is checked as any other: only ever stricter.
  for (const key in value) if (!check((value as Record<string, unknown>)[key])) return false;
  return true;
}
