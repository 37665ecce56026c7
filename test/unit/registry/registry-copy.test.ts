import { describe, expect, it } from 'vitest';
import { isFlatRegistryText } from '../../../src/adapters/file/registry-copy.js';
import type { Registry } from '../../../src/core/schema/registry.js';

/** The definition: every field of the envelope (but `teams`) and of every entry is not an object or array. */
const flatByWalk = (registry: Record<string, unknown> & { teams: Record<string, unknown>[] }) => {
  const { teams, ...envelope } = registry;
  return [envelope, ...teams].every((record) =>
    Object.values(record).every((value) => typeof value !== 'object' || value === null),
  );
};

const entry = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain,
  domainId: domain,
  status: 'active',
  onboardedAt: '2026-11-24T00:00:00.000Z',
  ...extra,
});

describe('isFlatRegistryText: whether a copy of the entries shares nothing, told by the text', () => {
  it.each([
    ['no teams', { lockVersion: 0, teams: [] }, true],
    ['flat entries', { lockVersion: 3, teams: [entry('a'), entry('b', { host: null, weight: 2 })] }, true],
    ['braces and brackets inside strings', { lockVersion: 1, note: '{[', teams: [entry('a{b}[c]')] }, true],
    [
      'an entry holding an object',
      { lockVersion: 1, teams: [entry('a'), entry('b', { placement: { zone: 'eu' } })] },
      false,
    ],
    ['an entry holding an array', { lockVersion: 1, teams: [entry('a', { tags: ['x'] })] }, false],
    ['an envelope field holding an object', { lockVersion: 1, meta: {}, teams: [entry('a')] }, false],
    ['an envelope field holding an array', { lockVersion: 1, owners: [], teams: [entry('a')] }, false],
  ])('%s', (_what, registry, flat) => {
    for (const text of [JSON.stringify(registry), JSON.stringify(registry, null, 2)])
      expect(isFlatRegistryText(text, JSON.parse(text) as Registry)).toBe(flat);
  });

  it('agrees with the definition on random registries, strings holding braces and brackets included', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
    const value = (): unknown =>
      random() < 0.03
        ? pick([{}, [], { a: 1 }, ['{'], [{}]])
        : pick(['x', '{', '[', '}{', '[]', 1, null, true, 'a"{b']);
    const record = () =>
      Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`f${i}`, value()]));
    let flats = 0;
    for (let round = 0; round < 3000; round++) {
      const registry = { ...record(), teams: Array.from({ length: Math.floor(random() * 5) }, record) };
      const text = JSON.stringify(registry, null, round % 2 === 0 ? 2 : undefined);
      const flat = flatByWalk(registry);
      if (flat) flats++;
      expect(isFlatRegistryText(text, JSON.parse(text) as Registry), text).toBe(flat);
    }
    // Both answers came up often.
    expect(flats).toBeGreaterThan(300);
    expect(flats).toBeLessThan(2700);
  });
});
