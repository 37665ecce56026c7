import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  initFederation,
  onboardTeam,
  openFederation,
  readFederationJournal,
  removeTeam,
  sendSignal,
  setTeamStatus,
  type Federation,
} from 'fed';
import { readRegistry } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { gitFederation } from '../helpers/git-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed team remove` deletes a team's workspace and registry entry on a registry it read first: of several
 * at once exactly one removes the team, and one whose read went stale never touches a team onboarded
 * since under the same name (exploratory findings: crash/concurrency items 1 and 4).
 */

type RegistryStore = Federation['backend']['registry'];

const fast = { durable: false };
const archive = (root: string, team: string) => setTeamStatus(openFederation(root), team, { type: 'ARCHIVE' }, fast);
const removals = async (root: string, team: string) =>
  (await readFederationJournal(openFederation(root).backend)).filter((r) => r.kind === 'removed' && r.team === team);

/** The federation at `root` with some of its registry store's methods replaced (each given the store's own). */
function withRegistryStore(root: string, replace: (store: RegistryStore) => Partial<RegistryStore>): Federation {
  const { backend } = openFederation(root);
  const replaced = replace(backend.registry);
  const store = new Proxy(backend.registry, {
    get: (target, key) => (key in replaced ? replaced[key as keyof RegistryStore] : Reflect.get(target, key)),
  });
  return openFederation(root, {
    backend: new Proxy(backend, { get: (target, key) => (key === 'registry' ? store : Reflect.get(target, key)) }),
  });
}

/** A federation whose registry reads run `meanwhile` once, after the first read and before it is returned. */
function withStaleFirstRead(root: string, meanwhile: () => Promise<void>): Federation {
  let stale = true;
  return withRegistryStore(root, (store) => ({
    read: async () => {
      const registry = await store.read();
      if (stale) {
        stale = false;
        await meanwhile();
      }
      return registry;
    },
  }));
}

describe('fed team remove against other processes', () => {
  it('a remove whose registry read is stale refuses the team onboarded since under that name and deletes none of it', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'x' }, fast);
    await archive(root, 'x');
    const workspace = join(root, '.fed', 'teams', 'x');

    // Between this remove's read (x archived) and anything it does: another remove, a new x, a mission to it.
    const stale = withStaleFirstRead(root, async () => {
      await removeTeam(openFederation(root), 'x', fast);
      await onboardTeam(openFederation(root), { domain: 'x' }, fast);
      await sendSignal(openFederation(root), { to: 'x', type: 'directive', subject: 'new mission' }, fast);
    });
    const refused = removeTeam(stale, 'x', fast);
    await expect(refused).rejects.toMatchObject({ code: 'TEAM_CHANGED', refusal: true });
    await expect(refused).rejects.toThrow(
      /team "x" was removed by another process and onboarded again \(at .+\) while this one ran; nothing was removed — to remove the new team: fed team archive x, then run this again/,
    );

    expect(readRegistry(root).teams).toEqual([expect.objectContaining({ domain: 'x', status: 'active' })]);
    expect(
      readdirSync(join(workspace, '.fed', 'signals', 'inbox')).filter((name) => name.endsWith('.json')),
    ).toHaveLength(1);
    expect(await removals(root, 'x')).toHaveLength(1);
  }, 60_000);

  it('the entry dropped is only the one checked: a team put in its place meanwhile (another host) stays', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'x' }, fast);
    await archive(root, 'x');
    // What another host sharing the registry could do, taking no lock of this one: x re-registered afresh.
    const fed = withRegistryStore(root, (store) => ({
      update: async (mutate, options) => {
        await store.update!((registry) => {
          registry.teams[0]!.onboardedAt = '2030-01-01T00:00:00.000Z';
          registry.teams[0]!.status = 'active';
          return registry;
        }, options);
        return store.update!(mutate, options);
      },
    }));

    await expect(removeTeam(fed, 'x', fast)).rejects.toMatchObject({
      code: 'TEAM_CHANGED',
      // Said as it is: the files here were deleted before the registry showed the change.
      message: expect.stringContaining(
        "onboarded again (at 2030-01-01T00:00:00.000Z) while this one removed it: this removal had already deleted the team's workspace here",
      ),
    });
    expect(existsSync(join(root, '.fed', 'teams', 'x'))).toBe(false);
    expect(readRegistry(root).teams).toEqual([
      expect.objectContaining({ domain: 'x', onboardedAt: '2030-01-01T00:00:00.000Z' }),
    ]);
    expect(await removals(root, 'x')).toEqual([]);
  }, 60_000);

  it('six fed team remove of one archived worktree team at once: one removes it and journals it, the others exit 2', async () => {
    const { root, git } = gitFederation();
    await onboardTeam(openFederation(root), { domain: 'w1', placementType: 'worktree', archetypeId: 'coding' }, fast);
    await archive(root, 'w1');

    const results = await Promise.all(
      Array.from({ length: 6 }, () => runFed(['--root', root, 'team', 'remove', 'w1'], { timeoutMs: 60_000 })),
    );
    const winners = results.filter((r) => r.code === 0);
    expect(winners, JSON.stringify(results)).toHaveLength(1);
    for (const loser of results.filter((r) => r.code !== 0)) {
      expect(loser.code, loser.stderr).toBe(2);
      // Refused while the winner holds the domain's lock, or after it removed the team.
      expect(loser.stderr).toMatch(
        /another process is onboarding or removing team "w1" right now|team "w1" was removed by another process|unknown team "w1"/,
      );
      expect(loser.stderr).not.toMatch(/unexpected error|\n\s+at /);
    }
    expect(await removals(root, 'w1')).toHaveLength(1);
    expect(readRegistry(root).teams).toEqual([]);
    expect(existsSync(join(root, '.fed', 'worktrees', 'w1'))).toBe(false);
    expect(git('branch', '--list', 'fed/w1')).toBe('');
  }, 120_000);
});
