/**
 * Variants of a valid value for comparing a quick check with its zod schema (isWellFormedEnvelope, the
 * archetypes' isWellFormedContext): every place in the value — each leaf and each object or array —
 * replaced by each of `replacements` (undefined removes it), so a check that lets through anything its
 * schema refuses shows.
 */

/** Every leaf and object of `value`, by path. */
function paths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [path];
  const children = Object.entries(value).flatMap(([key, child]) =>
    paths(child, [...path, Array.isArray(value) ? Number(key) : key]),
  );
  return path.length === 0 ? children : [path, ...children];
}

/** `valid` with `value` at `path` (undefined deletes the key, or the item of an array). */
export function withValue(valid: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(valid) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined && Array.isArray(at)) at.splice(last as number, 1);
  else if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

/** Every kind of JSON value, and the edge cases of fed's formats (timestamps, UUIDs, counts). */
export const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  true,
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  '',
  ' ',
  'x',
  '2026-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-01-01 00:00:00',
  '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b',
  '3F2B8A34-7C1E-4D5A-9B0E-2F6C8D4E1A7B',
  '3f2b8a34-7c1e-9d5a-9b0e-2f6c8d4e1a7b',
  [],
  [''],
  ['x'],
  {},
  { id: 'a', file: 'b' },
  // A limit on a string's length or its characters shows with these.
  'x'.repeat(5_000),
  'é',
  '\ud800',
];

/** `valid` with each of `replacements` at each of its places. */
export function variantsOf(valid: unknown, replacements: readonly unknown[] = REPLACEMENTS): unknown[] {
  return paths(valid).flatMap((path) => replacements.map((value) => withValue(valid, path, value)));
}

/** What of a zod schema the walk below reads: its definition's kind and the parts it wraps. */
interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  innerType?: { _zod: { def: SchemaDef } };
  element?: { _zod: { def: SchemaDef } };
  getter?: () => { _zod: { def: SchemaDef } };
  valueType?: { _zod: { def: SchemaDef } };
}

/**
 * The places of `schema`'s objects that `valid` leaves out: every key of every object shape the schema
 * declares (through optional, nullable, lazy, arrays — in one item or another — and records) must be there,
 * an object's or an array's not null, so that variantsOf tries each of them. A field added to the schema, optional or not, then fails
 * this until the fixture has it — and with it, the quick check is compared on it (its key sets come from
 * the schema, so it would let the new field through unchecked).
 */
export function uncoveredKeys(valid: unknown, schema: { _zod: { def: unknown } }, at = '$'): string[] {
  let def = schema._zod.def as SchemaDef;
  while (def.type === 'optional' || def.type === 'nullable' || def.type === 'lazy')
    def = def.type === 'lazy' ? def.getter!()._zod.def : def.innerType!._zod.def;
  // A null is replaced by every value variantsOf tries; what an object or array would hold is not.
  if (valid === null) return ['object', 'array', 'record'].includes(def.type) ? [`${at} (null)`] : [];
  if (def.type === 'object') {
    if (typeof valid !== 'object' || valid === null || Array.isArray(valid)) return [`${at} (an object)`];
    const object = valid as Record<string, unknown>;
    return Object.entries(def.shape!).flatMap(([key, field]) =>
      object[key] === undefined ? [`${at}.${key}`] : uncoveredKeys(object[key], field, `${at}.${key}`),
    );
  }
  if (def.type === 'array') {
    if (!Array.isArray(valid) || valid.length === 0) return [`${at}[] (an item)`];
    // Covered by one item or another: what no item has.
    const [first, ...others] = valid.map((item) => uncoveredKeys(item, def.element!, `${at}[]`));
    return first!.filter((place) => others.every((uncovered) => uncovered.includes(place)));
  }
  if (def.type === 'record' && typeof valid === 'object' && valid !== null)
    return Object.entries(valid).flatMap(([key, value]) => uncoveredKeys(value, def.valueType!, `${at}.${key}`));
  return [];
}
