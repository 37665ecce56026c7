import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { federationPaths, workspacePaths } from '../../src/core/layout.js';
import { REMEMBERED_FROM_BYTES } from '../../src/adapters/file/registry-validation.js';
import { updateRegistry } from '../../src/engine/registry/update-registry.js';
import { fedLoadedModules } from '../helpers/loaded-modules.js';
import { launchRunRecord } from '../helpers/launch-runs.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed team show` in a large federation (issue 31) initialises no more than in a small one: node:crypto,
 * a tenth of a bare node start to load, is not loaded to check the registry fed validated before (its
 * identity is kept beside its digest) nor the run journal added up before (its last bytes are kept).
 */

/** A registry past REMEMBERED_FROM_BYTES, `team-0` with a run journal of `runs` runs. */
async function federation(runs: number): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const team = await onboardTeam(fed, { domain: 'team-0' }, { durable: false });
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

describe('fed team show in a large federation', () => {
  it('loads no node:crypto once fed has seen its registry settled and added its runs up', async () => {
    const root = await federation(5);
    // Kept only for a registry that has not changed for 2 s (registry-validation.ts, SETTLED_MS).
    const changed = statSync(federationPaths(root).registry).ctimeMs;
    await sleep(Math.max(0, changed + 2_100 - Date.now()));
    await teamShowModules(root);
    expect(await teamShowModules(root)).not.toContain('NativeModule crypto');
  });
});
