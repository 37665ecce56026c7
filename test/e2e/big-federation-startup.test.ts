import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { federationPaths, workspacePaths } from '../../src/core/layout.js';
import { REMEMBERED_FROM_BYTES } from '../../src/adapters/file/registry-validation.js';
import { updateRegistry } from '../../src/engine/registry/update-registry.js';
import { FED_BIN } from '../helpers/fed-cli.js';
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

/** The built-in modules `fed team show` loaded (process.moduleLoadList, written as it exits). */
function teamShowModules(root: string): string[] {
  const preload = join(root, 'loaded.cjs');
  const loaded = join(root, 'loaded.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const shown = spawnSync(process.execPath, ['--require', preload, FED_BIN, 'team', 'show', 'team-0'], {
    env: { ...process.env, FED_ROOT: root, FED_TEAM: '', FED_TELEMETRY_ENABLED: 'false', FED_CODE_CACHE: 'off' },
    encoding: 'utf8',
  });
  expect({ status: shown.status, stderr: shown.stderr }).toEqual({ status: 0, stderr: '' });
  expect(shown.stdout).toContain('runs:        5 runs');
  return readFileSync(loaded, 'utf8').split('\n');
}

describe('fed team show in a large federation', () => {
  it('loads no node:crypto once fed has seen its registry settled and added its runs up', async () => {
    const root = await federation(5);
    // Kept only for a registry that has not changed for 2 s (registry-validation.ts, SETTLED_MS).
    const changed = statSync(federationPaths(root).registry).ctimeMs;
    await sleep(Math.max(0, changed + 2_100 - Date.now()));
    teamShowModules(root);
    expect(teamShowModules(root)).not.toContain('NativeModule crypto');
  });
});
