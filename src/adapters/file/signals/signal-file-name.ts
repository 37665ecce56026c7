import { SIGNAL_TYPES, type SignalMessage, type SignalType } from '../../../core/schema/signal.js';

/**
 * Signal file names (docs/design/spec.md §4.2): `<YYYY-MM-DDTHHMMSSZ>-<type>-<kebab-subject>.json`, and the ack file
 * `<signal-file>.json.ack` beside it. Subjects are data, not paths: they are reduced to a slug of
 * lowercase ASCII letters and digits, so no subject can add a directory, a dot-file, a control character
 * or an over-long name.
 */
export const SIGNAL_FILE_EXTENSION = '.json';
export const ACK_FILE_SUFFIX = '.ack';

/**
 * Longest subject slug. With the timestamp (18), the longest type (9), separators, a collision suffix,
 * `.json.ack` and the temp-file decoration of src/infra/fs (~30), names stay far below the 255-byte limit.
 */
export const MAX_SUBJECT_SLUG_LENGTH = 80;

/** Slug used when a subject has no letter or digit at all (emoji, punctuation, another script). */
export const EMPTY_SUBJECT_SLUG = 'signal';

/** `2026-01-31T12:04:05.123Z` → `2026-01-31T120405Z`: UTC, whole seconds, no colons (safe on every filesystem). */
export function compactTimestamp(timestamp: string | Date): string {
  const iso = (typeof timestamp === 'string' ? new Date(timestamp) : timestamp).toISOString();
  return `${iso.slice(0, 19).replaceAll(':', '')}Z`;
}

/** Text with no character beyond ASCII. */
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;

/**
 * A character beyond ASCII first, or right after an ASCII letter or digit: only there can a run of marks
 * stand alone between what the slug keeps (`re\u0301sume` → `resume`, not `re-sume`), or ahead of it,
 * where it would take a place of the cap. A mark anywhere else is in a run with some other character
 * beyond the slug's, which becomes one `-` with or without it.
 */
const MARKS_MAY_MATTER = /^[\u0080-\uffff]|[A-Za-z0-9][\u0080-\uffff]/;

/**
 * Kebab-case of a subject: accents are folded first (`Café` → `cafe`), then every run of anything that
 * is not a lowercase ASCII letter or digit becomes one `-`, trimmed at both ends and capped.
 */
export function subjectSlug(subject: string): string {
  // ASCII is its own NFKD form and has no marks: most subjects skip the Unicode tables, whose first use
  // (loading the normaliser, compiling \p{M}) is about 1 ms of a one-shot send. Of the rest, only those
  // whose marks may matter pay for \p{M} (0.3 ms): not a lifecycle report's `preparing → scanning`.
  const letters = ASCII_ONLY.test(subject) ? subject : withoutMarksThatMatter(subject.normalize('NFKD'));
  const slug = letters
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SUBJECT_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? EMPTY_SUBJECT_SLUG : slug;
}

/** `decomposed` (NFKD) with its combining marks removed, where removing them may change the slug. */
function withoutMarksThatMatter(decomposed: string): string {
  return MARKS_MAY_MATTER.test(decomposed) ? decomposed.replace(/\p{M}+/gu, '') : decomposed;
}

export function signalFileName(message: Pick<SignalMessage, 'timestamp' | 'type' | 'subject'>): string {
  return `${compactTimestamp(message.timestamp)}-${message.type}-${subjectSlug(message.subject)}${SIGNAL_FILE_EXTENSION}`;
}

export function ackFileName(signalFile: string): string {
  return `${signalFile}${ACK_FILE_SUFFIX}`;
}

/** `.json` files that are not hidden: temp files of src/infra/fs are dot-files and never count as signals. */
export function isSignalFileName(name: string): boolean {
  return name.endsWith(SIGNAL_FILE_EXTENSION) && !name.startsWith('.');
}

/** How an ack file's name ends (built once: a census tests every name of a box). */
const ACK_FILE_ENDING = `${SIGNAL_FILE_EXTENSION}${ACK_FILE_SUFFIX}`;

export function isAckFileName(name: string): boolean {
  return name.endsWith(ACK_FILE_ENDING) && !name.startsWith('.');
}

/**
 * Names a signal of this type and subject can have been published under — any second, with or without
 * the no-clobber suffix (`-2`, `-3`, …). A retried send has the same type and subject, so this lets the
 * `--id` check parse a handful of candidates instead of the whole inbox.
 */
export function sameSubjectPattern(type: SignalType, subject: string): RegExp {
  // Types and slugs are [a-z0-9-] only, so they need no escaping.
  return new RegExp(
    `^\\d{4}-\\d{2}-\\d{2}T\\d{6}Z-${type}-${subjectSlug(subject)}(?:-\\d+)?\\${SIGNAL_FILE_EXTENSION}$`,
  );
}

const NAMED = /^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})(\d{2})Z-([a-z]+)-/;

/**
 * The second and type a fed-made signal name carries (`2026-01-31T120405Z-question-…` → 12:04:05,
 * `question`), so a scan can skip most signals without reading them; undefined for another tool's name.
 * The name keeps whole seconds: the signal's own timestamp is up to a second later.
 */
export function nameHint(name: string): { time: number; type: SignalType } | undefined {
  const match = NAMED.exec(name);
  if (!match || !isSignalType(match[5]!)) return undefined;
  return { time: Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}Z`), type: match[5] };
}

/** The time NAMED matches, without capturing: what a name is tested with before its type is looked at. */
const NAMED_TIME = /^\d{4}-\d{2}-\d{2}T\d{6}Z-/;
/** Where NAMED's type starts (after the time and its `-`). */
const TYPE_AT = '2026-01-31T120405Z-'.length;
/** Each type with the `-` NAMED wants after it. */
const NAMED_TYPES = SIGNAL_TYPES.map((type) => ({ type, named: `${type}-` }));

/**
 * nameHint's type alone, without parsing the time: a census asks it of every name of every inbox, so
 * it is found in place, with no match or string made (NAMED's run of letters is a type only when the
 * `-` after it is where the type's own name ends).
 */
export function signalTypeOfName(name: string): SignalType | undefined {
  // A plain loop, as the census's (box-census.ts): a callback per type cost 2–3 ms more over 20 000 names.
  for (let i = 0; i < NAMED_TYPES.length; i++) {
    const { type, named } = NAMED_TYPES[i]!;
    if (name.startsWith(named, TYPE_AT)) return NAMED_TIME.test(name) ? type : undefined;
  }
  return undefined;
}

function isSignalType(type: string): type is SignalType {
  return (SIGNAL_TYPES as readonly string[]).includes(type);
}
