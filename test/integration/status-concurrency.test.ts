import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runDoctor, setTeamStatus } from 'fed';
import { loadTeamLifecycle, readRegistry } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const RACERS = 4;

describe('concurrent identical status changes (issue 19 item 7)', () => {
  for (const archetype of ['deliverable', 'research']) {
    it(`${RACERS} processes running "fed team pause" at once: one wins, the others exit 2 (${archetype} team)`, async () => {
      const root = tempDir();
      initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
      await onboardTeam(openFederation(root), { domain: 'docs', archetypeId: archetype }, { durable: false });
      const results = await Promise.all(
        Array.from({ length: RACERS }, () => runFed(['--root', root, 'team', 'pause', 'docs'])),
      );
      const winners = results.filter((r) => r.code === 0);
      expect(
        winners.map((r) => r.stdout),
        JSON.stringify(results),
      ).toEqual(['docs: active → paused\n']);
      for (const loser of results.filter((r) => r.code !== 0)) {
        expect(loser.code, loser.stderr).toBe(2);
        expect(loser.stderr).toContain('cannot pause team "docs": it is paused');
      }
      expect(readRegistry(root).teams[0]?.status).toBe('paused');
    }, 60_000);
  }

  it('a pause stopped between the lifecycle write and the registry write: doctor names it, the retry completes it (exit 0)', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const killed = setTeamStatus(
      openFederation(root),
      'docs',
      { type: 'PAUSE' },
      {
        durable: false,
        faultPoint: (point) => {
          if (point === 'after-persist') throw new Error('killed');
        },
      },
    );
    await expect(killed).rejects.toThrow('killed');
    const fed = openFederation(root);
    expect(readRegistry(root).teams[0]?.status).toBe('active');
    expect((await loadTeamLifecycle(readRegistry(root).teams[0]!, fed.backend.lifecycles)).snapshot.value).toBe(
      'paused',
    );
    expect((await runDoctor(fed)).findings).toEqual([
      expect.objectContaining({
        check: 'state',
        team: 'docs',
        problem: expect.stringContaining('the registry status "paused" (the registry says "active")'),
        fixable: true,
      }),
    ]);
    const retry = await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' }, { durable: false });
    expect(retry).toMatchObject({ from: 'active', to: 'paused' });
    expect(readRegistry(root).teams[0]?.status).toBe('paused');
    await expect(setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' })).rejects.toThrow(
      'cannot pause team "docs": it is paused',
    );
  });
});
