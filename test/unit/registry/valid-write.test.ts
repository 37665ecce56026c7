import { describe, expect, it, vi } from 'vitest';
import { validWrite } from 'fed/testing';
import { type Registry, type RegistryEntry, registryEntrySchema } from 'fed';

/**
 * validWrite finds the entries a write changed: those it cannot show to be, to the byte, entries of the
 * registry validated whole are validated, so a written registry it accepts is one validating it whole
 * accepts.
 */
const entry = (name: string): RegistryEntry => ({
  domain: name,
  domainId: name,
  archetypeId: 'deliverable',
  placementType: 'directory',
  onboardedAt: '2026-01-01T00:00:00.000Z',
  location: `/fed/.fed/teams/${name}`,
  status: 'active',
  lastActive: '2026-01-01T00:00:00.000Z',
});
const registry = (teams: RegistryEntry[]): Registry => ({
  lastUpdated: '2026-01-01T00:00:00.000Z',
  lockVersion: 3,
  teams,
});
const before = registry(['a', 'b', 'c'].map(entry));
/** The entries validated (and so not shown to be validated entries) while checking `written`. */
function validatedEntries(written: Registry, base = before): { valid: boolean; validated: unknown[] } {
  const parse = vi.spyOn(registryEntrySchema, 'safeParse');
  try {
    const valid = validWrite(written, base);
    return { valid, validated: parse.mock.calls.map(([value]) => value) };
  } finally {
    parse.mockRestore();
  }
}

describe('validWrite', () => {
  it('validates only the entry a write changed in place, making the text of no other entry', () => {
    const changed = structuredClone(before);
    changed.teams[1]!.lastActive = '2026-02-01T00:00:00.000Z';
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(validatedEntries(changed)).toEqual({ valid: true, validated: [changed.teams[1]] });
      // The changed one is validated as JSON writes it.
      expect(stringify.mock.calls.filter(([value]) => (value as Partial<RegistryEntry>)?.domainId)).toEqual([
        [changed.teams[1]],
      ]);
    } finally {
      stringify.mockRestore();
    }
  });

  it('refuses a changed entry that is invalid', () => {
    const changed = structuredClone(before);
    changed.teams[2]!.domainId = 'Not A Team';
    expect(validatedEntries(changed).valid).toBe(false);
  });

  it('validates an entry that would be written otherwise than the one at its index, as JSON writes it', () => {
    const reordered = structuredClone(before);
    const { status, ...rest } = reordered.teams[0]!;
    const others = reordered.teams.slice(1);
    const check = (changed: unknown) => validatedEntries(registry([changed as RegistryEntry, ...others]));
    // Its keys in another order, or a key JSON drops: validated, and valid.
    for (const changed of [
      { ...rest, status },
      { ...reordered.teams[0], lastActive: undefined },
    ])
      expect(check(changed)).toEqual({ valid: true, validated: [JSON.parse(JSON.stringify(changed))] });
    // What JSON writes instead of the object: a toJSON's value, or only its own fields — refused when
    // that is no entry.
    expect(check({ ...reordered.teams[0], toJSON: () => ({}) })).toEqual({ valid: false, validated: [{}] });
    expect(check(Object.create(reordered.teams[0]!) as object)).toEqual({ valid: false, validated: [{}] });
    // A hole in the teams array is written as null.
    const holed = registry([...reordered.teams]);
    delete holed.teams[1];
    expect(validatedEntries(holed)).toEqual({ valid: false, validated: [null] });
  });

  it('finds the entries that moved when teams were added, removed or reordered', () => {
    const [a, b, c] = structuredClone(before).teams;
    expect(validatedEntries(registry([a!, c!])).validated).toEqual([]);
    expect(validatedEntries(registry([c!, a!, b!, entry('d')])).validated).toEqual([entry('d')]);
    // The same number of teams, swapped: each compared with the one at its index, so validated.
    expect(validatedEntries(registry([b!, a!, c!])).validated).toEqual([b, a]);
  });

  it("compares a newer fed's nested fields value by value: arrays by length and item, objects by prototype", () => {
    const nested = registry(
      ['a', 'b'].map((name) => ({ ...entry(name), extra: { tags: ['x', 'y'], at: { n: 1 } } }) as RegistryEntry),
    );
    const changedBy = (change: (extra: Record<string, unknown>) => void) => {
      const written = structuredClone(nested);
      change((written.teams[1] as unknown as { extra: Record<string, unknown> }).extra);
      return validatedEntries(written, nested).validated.length;
    };
    expect(changedBy(() => {})).toBe(0);
    expect(changedBy((extra) => (extra['tags'] = ['x', 'z']))).toBe(1);
    expect(changedBy((extra) => (extra['tags'] = ['x']))).toBe(1);
    expect(changedBy((extra) => (extra['tags'] = ['x', 'y', 'z']))).toBe(1);
    expect(changedBy((extra) => (extra['tags'] = { 0: 'x', 1: 'y', length: 2 }))).toBe(1);
    expect(changedBy((extra) => (extra['at'] = ['n']))).toBe(1);
    expect(
      changedBy((extra) => (extra['at'] = Object.assign(Object.create({ inherited: true }) as object, { n: 1 }))),
    ).toBe(1);
    expect(changedBy((extra) => (extra['at'] = null))).toBe(1);
    expect(changedBy((extra) => (extra['at'] = { n: 1, m: 2 }))).toBe(1);
  });
});
