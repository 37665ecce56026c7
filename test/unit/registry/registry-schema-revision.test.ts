import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { REGISTRY_SCHEMA_REVISION, registrySchema } from '../../../src/core/schema/registry.js';
import { parseValidatedRegistry } from 'fed/testing';

describe('the registry schema revision', () => {
  it('changes with the shape of the registry schema (bump REGISTRY_SCHEMA_REVISION, then record the new shape here)', () => {
    // A digest of a large registry text fed validated is trusted only under the same revision; this pins
    // the revision to the schema's shape (its JSON Schema; refinements are not in it: bump for those too).
    const shape = createHash('sha256')
      .update(JSON.stringify(z.toJSONSchema(registrySchema, { unrepresentable: 'any' })))
      .digest('hex')
      .slice(0, 16);
    expect({ revision: REGISTRY_SCHEMA_REVISION, shape }).toEqual({ revision: 3, shape: 'a974b878a41b612f' });
  });

  it('a text trusted by its digest is parsed as zod parses it: an own __proto__ key is dropped', () => {
    const text = JSON.stringify({ lockVersion: 1, teams: [] }).replace('{', '{"__proto__":{"polluted":true},');
    const parsed = parseValidatedRegistry(text);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(false);
    expect(parsed).toEqual({ lockVersion: 1, teams: [] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("drops __proto__ where zod does, on the envelope and on each entry, and keeps one in a newer fed's field", () => {
    const entry =
      '{"__proto__":{},"domain":"a","domainId":"a","archetypeId":"deliverable","placementType":"directory","onboardedAt":"2026-01-01T00:00:00.000Z","location":"/fed/a","extra":{"__proto__":{"x":1},"k":2}}';
    const text = `{"__proto__":{},"lastUpdated":"2026-01-01T00:00:00.000Z","lockVersion":1,"teams":[${entry}]}`;
    const byZod = registrySchema.parse(JSON.parse(text)) as unknown as { teams: Array<Record<string, object>> };
    const parsed = parseValidatedRegistry(text) as unknown as { teams: Array<Record<string, object>> };
    for (const registry of [byZod, parsed]) {
      expect(Object.hasOwn(registry, '__proto__')).toBe(false);
      expect(Object.hasOwn(registry.teams[0]!, '__proto__')).toBe(false);
      expect(Object.hasOwn(registry.teams[0]!.extra!, '__proto__')).toBe(true);
    }
    expect(parsed).toEqual(byZod);
  });
});
