import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { federationPaths, readRegistry } from 'fed/testing';
import { registrySchema } from '../../../src/core/schema/registry.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A federation with two teams; returns its root. */
async function federation(): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'alpha' }, { durable: false });
  await onboardTeam(openFederation(root), { domain: 'beta' }, { durable: false });
  return root;
}

describe('readRegistry: an unchanged registry is validated once per process', () => {
  it('validates the same text once, and each read still gets its own copy to change', async () => {
    const root = await federation();
    const validate = vi.spyOn(registrySchema, 'safeParse');
    try {
      const first = readRegistry(root);
      first.teams[0]!.lastActive = '2000-01-01T00:00:00.000Z';
      first.teams.pop();
      const second = readRegistry(root);
      expect(validate).toHaveBeenCalledTimes(1);
      expect(second.teams.map((team) => team.domainId)).toEqual(['alpha', 'beta']);
      expect(second.teams[0]!.lastActive).not.toBe('2000-01-01T00:00:00.000Z');
    } finally {
      validate.mockRestore();
    }
  });

  it('gives each read a copy of its own, a newer fed field holding an object included', async () => {
    const root = await federation();
    const file = federationPaths(root).registry;
    const newer = JSON.parse(readFileSync(file, 'utf8')) as { teams: Array<Record<string, unknown>> };
    newer.teams[1]!.placement = { zone: 'eu', tags: ['a'] };
    writeFileSync(file, JSON.stringify(newer, null, 2));
    const first = readRegistry(root);
    ((first.teams[1] as Record<string, unknown>).placement as { tags: string[] }).tags.push('changed');
    first.teams[0]!.domain = 'changed';
    const second = readRegistry(root);
    expect(second.teams[1]).toMatchObject({ placement: { zone: 'eu', tags: ['a'] } });
    expect(second.teams[0]!.domain).toBe('alpha');
  });

  it('sees a change made by another writer at once, and validates it', async () => {
    const root = await federation();
    const file = federationPaths(root).registry;
    expect(readRegistry(root).teams).toHaveLength(2);
    const changed = JSON.parse(readFileSync(file, 'utf8')) as { teams: unknown[] };
    changed.teams.pop();
    writeFileSync(file, JSON.stringify(changed, null, 2));
    expect(readRegistry(root).teams.map((team) => team.domainId)).toEqual(['alpha']);
  });

  it('reports a registry broken after a good read, never the copy it validated before', async () => {
    const root = await federation();
    const file = federationPaths(root).registry;
    readRegistry(root);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"lockVersion"', '"lockVersion": "x", "ignored"'));
    expect(() => readRegistry(root)).toThrow(/team-registry\.json/);
  });
});
