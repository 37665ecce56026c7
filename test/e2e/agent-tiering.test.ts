import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, runActors, sendSignal } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { builtBin, FED_BIN } from '../helpers/fed-cli.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { writeLaunchContext } from '../helpers/launch-context.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * What the built fed-agent has V8's optimising compiler (TurboFan) compile in one run on a small codebase
 * (src/apps/agent/v8-tiering.ts): with V8's default budget about 100 functions, most of them the Markdown
 * parser's, compiled on another thread for code that had finished by then — a third of the agent's CPU in
 * a `fed run --parallel`. `--trace-opt` (given to this node, before the agent's own flags) prints each.
 */
const MISSION = { subject: 'Survey the codebase', body: 'Read-only study.' };

describe('fed-agent: V8 optimises only what stays hot', () => {
  it('compiles a handful of functions with TurboFan in a small run, not a hundred', async () => {
    const root = typescriptProject(tempDir());
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', ...MISSION }, { durable: false });
    await runActors(openFederation(root), { once: true, team: 'docs' });
    const context = await writeLaunchContext(root, 'docs', MISSION);
    const bin = join(tempDir(), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'fed'), `#!/bin/sh\nexec "${process.execPath}" "${FED_BIN}" "$@"\n`);
    chmodSync(join(bin, 'fed'), 0o755);

    const run = spawnSync(process.execPath, ['--trace-opt', builtBin('fed-agent')], {
      cwd: team.location,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        FED_LAUNCH_CONTEXT: context,
        FED_TELEMETRY_ENABLED: 'false',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(existsSync(join(team.location, 'deliverable.md'))).toBe(true);
    const optimised = run.stdout.match(/^\[completed (?:compiling|optimizing) .*TURBOFAN/gm) ?? [];
    expect(optimised.length).toBeLessThanOrEqual(20);
  }, 90_000);
});
