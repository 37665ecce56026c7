import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, updateRegistry } from 'fed';
import { federationPaths, REMEMBERED_FROM_BYTES, workspacePaths } from 'fed/testing';
import { assignMission } from '../helpers/big-federations.js';
import { fedLoadedModules, loadsCrypto } from '../helpers/loaded-modules.js';
import { launchRunRecord } from '../helpers/launch-runs.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * In a large federation (issue 31) the commands agents and coordinators run most initialise no more than
 * in a small one: node:crypto, a tenth of a bare node start to load, is not loaded to check the registry
 * fed validated before (its identity is kept beside its digest), nor to add up the run journal added up
 * before (its last bytes are kept), nor for the ids, temp names and digests of a `fed event` or a `fed
 * signal send` (src/infra/crypto/).
 */

/** A registry past REMEMBERED_FROM_BYTES, `team-0` with its mission and a run journal of `runs` runs. */
async function federation(runs: number): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const team = await onboardTeam(fed, { domain: 'team-0' }, { durable: false });
  await assignMission(fed, team);
  await updateRegistry(fed, (registry) => {
    for (let t = 1; t < 400; t++)
      registry.teams.push({
        ...team,
        domain: `team-${t}`,
        domainId: `team-${t}`,
        location: `${root}/.fed/teams/t${t}`,
      });
    return registry;
  });
  expect(statSync(federationPaths(root).registry).size).toBeGreaterThan(REMEMBERED_FROM_BYTES);
  const journal = workspacePaths(team.location).runsJournal;
  mkdirSync(dirname(journal), { recursive: true });
  for (let i = 0; i < runs; i++) appendFileSync(journal, `${JSON.stringify(launchRunRecord(i))}\n`);
  return root;
}

/** The built-in modules `fed team show` loaded. */
async function teamShowModules(root: string): Promise<string[]> {
  const { result, modules } = await fedLoadedModules(['team', 'show', 'team-0'], {
    FED_ROOT: root,
    FED_CODE_CACHE: 'off',
  });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toContain('runs:        5 runs');
  return modules;
}

describe('in a large federation', () => {
  it('fed team show, fed event and fed signal send load no node:crypto once fed has seen its registry settled', async () => {
    const root = await federation(5);
    // Kept only for a registry that has not changed for 2 s (registry-validation.ts, SETTLED_MS).
    const changed = statSync(federationPaths(root).registry).ctimeMs;
    await sleep(Math.max(0, changed + 2_100 - Date.now()));
    await teamShowModules(root);
    expect(loadsCrypto(await teamShowModules(root))).toBe(false);
    for (const args of [
      ['event', '--team', 'team-0', 'PLAN_READY', '--data', '{"sources":["src"]}'],
      'signal send --to team-0 --type directive --subject go --body now'.split(' '),
    ]) {
      const { result, modules } = await fedLoadedModules(args, { FED_ROOT: root, FED_CODE_CACHE: 'off' });
      expect({ code: result.code, stderr: result.stderr }, args.join(' ')).toEqual({ code: 0, stderr: '' });
      expect(loadsCrypto(modules), args.join(' ')).toBe(false);
    }
  });
});
