import type { z } from 'zod';

/**
 * Keys present in `value` that `schema` does not declare, with the closest declared key as a suggestion.
 * Objects parsed by zod drop unknown keys silently; a typo such as `telemtry` would then fall back to
 * defaults unnoticed, so loaders report these as warnings.
 */
export interface UnknownKey {
  path: string;
  key: string;
  suggestion: string | undefined;
}

type AnySchema = z.core.$ZodType;

function objectShape(schema: AnySchema): Record<string, AnySchema> | undefined {
  let current: AnySchema = schema;
  // Optional, default, nullable and similar wrappers all keep the wrapped schema in `innerType`.
  for (let depth = 0; depth < 10; depth++) {
    const def = current._zod.def as { type: string; innerType?: AnySchema; shape?: Record<string, AnySchema> };
    if (def.type === 'object') return def.shape;
    if (!def.innerType) return undefined;
    current = def.innerType;
  }
  return undefined;
}

export function findUnknownKeys(schema: AnySchema, value: unknown, path = ''): UnknownKey[] {
  const shape = objectShape(schema);
  if (!shape || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const found: UnknownKey[] = [];
  const known = Object.keys(shape);
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    // Own keys only: `__proto__`, `constructor` or `toString` in a config are unknown keys, not built-ins.
    const childSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (childSchema) found.push(...findUnknownKeys(childSchema, child, childPath));
    else found.push({ path: childPath, key, suggestion: closest(key, known) });
  }
  return found;
}

/** The known key within a small edit distance (case-insensitive), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
