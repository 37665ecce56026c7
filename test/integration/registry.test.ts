import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CorruptFileError,
  initFederation,
  onboardTeam,
  openFederation,
  RegistryConflictError,
  updateRegistry,
} from 'fed';
import { commitRegistry, federationPaths, readRegistry, touchLastActive, writeRegistryStatus } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

function federation(): string {
  const root = tempDir();
  initFederation(root, {}, {});
  return root;
}

describe('registry optimistic concurrency', () => {
  it('starts empty at lockVersion 0 and every write sets lastUpdated and lockVersion + 1', async () => {
    const root = federation();
    const initial = readRegistry(root);
    expect(initial).toMatchObject({ lockVersion: 0, teams: [] });
    const later = new Date('2030-01-02T03:04:05.000Z');
    const written = await commitRegistry(root, 0, initial, { now: () => later });
    expect(written.lockVersion).toBe(1);
    expect(readRegistry(root)).toEqual({ lastUpdated: '2030-01-02T03:04:05.000Z', lockVersion: 1, teams: [] });
  });

  it('refuses a commit based on a stale lockVersion with a typed conflict and writes nothing', async () => {
    const root = federation();
    const stale = readRegistry(root);
    await commitRegistry(root, 0, stale);
    const before = readFileSync(federationPaths(root).registry, 'utf8');
    const error = await commitRegistry(root, 0, stale).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryConflictError);
    expect(error).toMatchObject({ code: 'REGISTRY_CONFLICT', expected: 0, actual: 1 });
    expect(readFileSync(federationPaths(root).registry, 'utf8')).toBe(before);
  });

  it('re-reads and re-applies the mutation after a conflict, so no update is lost', async () => {
    const root = federation();
    let calls = 0;
    const result = await updateRegistry(openFederation(root), (registry) => {
      calls++;
      // Simulate another writer landing between this writer's read and its commit, once.
      if (calls === 1) writeFileSync(federationPaths(root).registry, JSON.stringify({ ...registry, lockVersion: 5 }));
      registry.teams = [];
      return registry;
    });
    expect(calls).toBe(2);
    expect(result).toMatchObject({ changed: true, attempts: 2 });
    expect(readRegistry(root).lockVersion).toBe(6);
  });

  it('does not write when the mutation returns undefined', async () => {
    const root = federation();
    const result = await updateRegistry(openFederation(root), () => undefined);
    expect(result.changed).toBe(false);
    expect(readRegistry(root).lockVersion).toBe(0);
  });

  it('a refusal thrown by the mutation propagates and nothing is written', async () => {
    const root = federation();
    await expect(
      updateRegistry(openFederation(root), () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(readRegistry(root).lockVersion).toBe(0);
  });

  it.each([
    ['not JSON', '{"lockVersion": 1,', /not valid JSON at line 1, column 19/],
    [
      'lockVersion not an integer',
      JSON.stringify({ lastUpdated: '2026-01-01T00:00:00Z', lockVersion: 1.5, teams: [] }),
      /lockVersion: expected an integer/,
    ],
    [
      'bad timestamp',
      JSON.stringify({ lastUpdated: 'yesterday', lockVersion: 1, teams: [] }),
      /lastUpdated: expected an ISO 8601 timestamp/,
    ],
    [
      'relative location',
      JSON.stringify({
        lastUpdated: '2026-01-01T00:00:00Z',
        lockVersion: 1,
        teams: [
          {
            domain: 'a',
            domainId: 'a',
            archetypeId: 'deliverable',
            placementType: 'directory',
            onboardedAt: '2026-01-01T00:00:00Z',
            location: 'rel/path',
          },
        ],
      }),
      /teams\[0\]\.location: expected an absolute path/,
    ],
  ])('reports a corrupt registry (%s) with its path and never overwrites it', async (_label, text, problem) => {
    const root = federation();
    const file = federationPaths(root).registry;
    writeFileSync(file, text);
    expect(() => readRegistry(root)).toThrow(CorruptFileError);
    expect(() => readRegistry(root)).toThrow(problem);
    expect(() => readRegistry(root)).toThrow(file);
    await expect(onboardTeam(openFederation(root), { domain: 'docs' })).rejects.toThrow(CorruptFileError);
    expect(() => initFederation(root, {}, {})).toThrow(CorruptFileError);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(join(root, '.fed', 'teams', 'docs'))).toBe(false);
  });

  it('refuses to raise a lockVersion at the largest safe integer, before writing, and the registry stays readable', async () => {
    const root = federation();
    const file = federationPaths(root).registry;
    const registry = { ...readRegistry(root), lockVersion: Number.MAX_SAFE_INTEGER };
    writeFileSync(file, JSON.stringify(registry));
    const before = readFileSync(file, 'utf8');
    const error = await updateRegistry(openFederation(root), (current) => ({ ...current, extra: 1 })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'REGISTRY_VERSION_EXHAUSTED', refusal: true });
    expect((error as Error).message).toMatch(/lockVersion is 9007199254740991.*cannot be raised/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readRegistry(root).lockVersion).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('keeps keys it does not know when writing (a newer fed may have added them)', async () => {
    const root = federation();
    const file = federationPaths(root).registry;
    writeFileSync(file, JSON.stringify({ ...readRegistry(root), futureField: { x: 1 } }));
    await updateRegistry(openFederation(root), (r) => r);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ futureField: { x: 1 }, lockVersion: 1 });
  });
});

describe('onboarding', () => {
  it('registers a directory team with the spec fields, the host its workspace is on, its signal boxes and marker', async () => {
    const root = federation();
    const entry = await onboardTeam(openFederation(root), { domain: 'docs' });
    expect(entry).toEqual({
      domain: 'docs',
      domainId: 'docs',
      archetypeId: 'deliverable',
      placementType: 'directory',
      onboardedAt: entry.onboardedAt,
      location: join(root, '.fed', 'teams', 'docs'),
      host: hostname(),
      status: 'active',
      lastActive: entry.onboardedAt,
    });
    expect(readRegistry(root)).toMatchObject({ lockVersion: 1, teams: [entry] });
    expect(readdirSync(join(entry.location, '.fed', 'signals')).sort()).toEqual(['inbox', 'outbox']);
    expect(JSON.parse(readFileSync(join(entry.location, '.fed', 'team.json'), 'utf8'))).toEqual({
      federationRoot: root,
      domainId: 'docs',
    });
  });

  it('refuses a duplicate domain or id and creates nothing', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await expect(onboardTeam(openFederation(root), { domain: 'docs' })).rejects.toMatchObject({
      code: 'DUPLICATE_TEAM',
    });
    await expect(onboardTeam(openFederation(root), { domain: 'other', domainId: 'docs' })).rejects.toMatchObject({
      code: 'DUPLICATE_TEAM',
    });
    expect(readdirSync(join(root, '.fed', 'teams'))).toEqual(['docs']);
    expect(readRegistry(root).lockVersion).toBe(1);
  });

  it('reports a registry with a team entered twice (a hand edit, a merge) as corrupt, naming both, and keeps it', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await onboardTeam(openFederation(root), { domain: 'api' }, { durable: false });
    const file = federationPaths(root).registry;
    const registry = JSON.parse(readFileSync(file, 'utf8')) as { teams: unknown[] };
    registry.teams.push(registry.teams[0]);
    const text = JSON.stringify(registry);
    writeFileSync(file, text);
    const read = openFederation(root).backend.registry.read();
    await expect(read).rejects.toBeInstanceOf(CorruptFileError);
    await expect(read).rejects.toThrow(/teams\[2\]: team "docs" is registered twice \(teams\[0\] and teams\[2\]\)/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it.each(['../x', 'Docs', 'has space', '', 'a--b', '-a', 'meta', 'x'.repeat(65), 'ü'])(
    'refuses the unsafe name %j and creates nothing',
    async (name) => {
      const root = federation();
      await expect(onboardTeam(openFederation(root), { domain: name })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      await expect(onboardTeam(openFederation(root), { domain: 'ok', domainId: name })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      expect(existsSync(join(root, '.fed', 'teams'))).toBe(false);
      expect(readRegistry(root).lockVersion).toBe(0);
    },
  );

  it('removes the workspace again when the registry commit fails (no orphans)', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    // Hold the commit lock as a live writer on another host would, so the next commit times out.
    writeFileSync(
      federationPaths(root).registryLock,
      JSON.stringify({ pid: process.pid, host: 'elsewhere', token: 't', acquiredAt: new Date().toISOString() }),
    );
    await expect(
      onboardTeam(openFederation(root), { domain: 'api' }, { lock: { timeoutMs: 50, staleMs: 60_000 } }),
    ).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(readdirSync(join(root, '.fed', 'teams'))).toEqual(['docs']);
    expect(readRegistry(root).teams.map((t) => t.domainId)).toEqual(['docs']);
  });
});

describe('team status and activity', () => {
  it('moves status through the team-status machine and refreshes lastActive', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' }, { now: () => new Date('2026-01-01T00:00:00Z') });
    const change = await writeRegistryStatus(
      openFederation(root),
      'docs',
      { type: 'PAUSE' },
      { now: () => new Date('2026-01-02T00:00:00Z') },
    );
    expect(change).toMatchObject({ from: 'active', to: 'paused' });
    expect(readRegistry(root).teams[0]).toMatchObject({ status: 'paused', lastActive: '2026-01-02T00:00:00.000Z' });
  });

  it('refuses an illegal transition naming the status and the allowed commands', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await expect(writeRegistryStatus(openFederation(root), 'docs', { type: 'RESUME' })).rejects.toThrow(
      'cannot resume team "docs": it is active; allowed: fed team pause docs, fed team archive docs',
    );
    await writeRegistryStatus(openFederation(root), 'docs', { type: 'ARCHIVE' });
    await expect(writeRegistryStatus(openFederation(root), 'docs', { type: 'PAUSE' })).rejects.toThrow(
      'archived is final',
    );
    expect(readRegistry(root).lockVersion).toBe(2);
  });

  it('refreshes lastActive only when it is older than the resolution', async () => {
    const root = federation();
    await onboardTeam(openFederation(root), { domain: 'docs' }, { now: () => new Date('2026-01-01T00:00:00Z') });
    expect(await touchLastActive(openFederation(root), 'docs', { now: () => new Date('2026-01-01T00:00:30Z') })).toBe(
      false,
    );
    expect(await touchLastActive(openFederation(root), 'docs', { now: () => new Date('2026-01-01T00:01:00Z') })).toBe(
      true,
    );
    expect(await touchLastActive(openFederation(root), 'meta')).toBe(false);
    // Kept beside the registry, which reads give with it; the registry file takes it in at its next write.
    expect(readRegistry(root)).toMatchObject({ lockVersion: 1, teams: [{ lastActive: '2026-01-01T00:01:00.000Z' }] });
    await writeRegistryStatus(
      openFederation(root),
      'docs',
      { type: 'PAUSE' },
      { now: () => new Date('2026-01-01T00:00:45Z') },
    );
    expect(JSON.parse(readFileSync(federationPaths(root).registry, 'utf8'))).toMatchObject({
      lockVersion: 2,
      teams: [{ status: 'paused', lastActive: '2026-01-01T00:01:00.000Z' }],
    });
    expect(existsSync(federationPaths(root).teamActivity)).toBe(false);
  });
});
