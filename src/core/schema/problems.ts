import type { z } from 'zod';
import { InvalidInputError, type ValidationProblem } from '../errors.js';
import { redactUrl } from '../redact-url.js';

/**
 * Turn zod issues into problems a person can act on: the JSON path of the field and what was expected
 * against what was found (`chatConfig.teamId: expected a non-empty string, got number`). Schemas in this
 * folder may give their own message; any message starting with "expected " is used as it is.
 */
const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  null: 'null',
};

// Declared with the machines' schema primitives (machines/ imports nothing from src/), used by every schema.
import { describeValue } from '../../../machines/schema-primitives.js';

export { describeValue };

/** A rejected URL as a message names it: without the password or token it may carry (core/redact-url). */
export function describeUrlValue(value: unknown): string {
  return describeValue(typeof value === 'string' ? redactUrl(value) : value);
}

export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * What a UUID (a signal's id) must be, said with the two digits a string of hex in the UUID's shape most often gets
 * wrong (`22222222-2222-2222-2222-222222222222` is not one): RFC 9562's version and variant.
 */
export const UUID_EXPECTED =
  'expected a UUID such as 1b4e28ba-2fa1-41d2-883f-0016d3cca427 (its 13th hex digit a version 1–8, its 17th one of 8, 9, a, b)';

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('expected ')) return issue.message;
  const got = describeValue(issue.input);
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${got}`;
    case 'too_small':
      if (issue.origin === 'string') return `expected a non-empty string, got ${got}`;
      if (issue.origin === 'number') return `expected a number ≥ ${String(issue.minimum)}, got ${got}`;
      return `expected at least ${String(issue.minimum)} item(s), got ${got}`;
    case 'too_big':
      return `expected at most ${String(issue.maximum)}${issue.origin === 'string' ? ' characters' : ''}, got ${got}`;
    case 'invalid_format':
      if (issue.format === 'datetime') return `expected an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got ${got}`;
      if (issue.format === 'url') return `expected a URL such as http://localhost:18888, got ${got}`;
      if (issue.format === 'uuid') return `${UUID_EXPECTED}, got ${got}`;
      return `expected ${issue.format} format, got ${got}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${got}`;
    case 'unrecognized_keys':
      return `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    default:
      return issue.message;
  }
}

export function zodProblems(error: z.ZodError): ValidationProblem[] {
  return error.issues
    .flatMap(meantBranch)
    .map((issue) => ({ path: jsonPath(issue.path), message: describeIssue(issue) }));
}

/**
 * A union's problem said of the branch the value was meant for — the one branch whose problems lie
 * inside the value (`agent.network.allow: expected an array of hosts`), when only one does — and not of
 * the whole value (`agent.network: expected "provider", … or { "allow": [...] }, got object`). A value of
 * no branch's shape keeps the union's own message.
 */
function meantBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const inside = issue.errors.filter((branch) =>
    branch.some((problem) => problem.path.length > 0 || problem.code === 'unrecognized_keys'),
  );
  if (inside.length !== 1) return [issue];
  return inside[0]!.flatMap((problem) => meantBranch({ ...problem, path: [...issue.path, ...problem.path] }));
}

/** The problems as one line (`path: message; path: message`), each path under `prefix` when given. */
export function zodProblemText(error: z.ZodError, options: { prefix?: string; separator?: string } = {}): string {
  const prefix = options.prefix ? `${options.prefix}.` : '';
  return zodProblems(error)
    .map((p) => `${prefix}${p.path}: ${p.message}`)
    .join(options.separator ?? '; ');
}

/**
 * What a person gave — a command's options, a form's fields — parsed with the schema of the file it goes
 * into, before it is written there: each problem is bad input (exit 2) said of what they gave it as,
 * `names` mapping a problem's path (`cron`, `limits.maxTurns`) to that (`--cron`, `--max-turns`), never a
 * problem of a file that is fine.
 */
export function parseGiven<T>(schema: z.ZodType<T>, value: unknown, names: Readonly<Record<string, string>>): T {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    zodProblems(parsed.error)
      .map((p) => (p.path === '(root)' ? p.message : `${names[p.path] ?? p.path}: ${p.message}`))
      .join('; '),
  );
}
