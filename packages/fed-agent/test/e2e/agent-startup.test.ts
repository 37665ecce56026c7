import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { builtBin, FED_BIN } from '../../../../test/helpers/fed-cli.js';
import { typescriptProject } from '../../../../test/helpers/fixture-repo.js';
import { writeLaunchContext } from '../../../../test/helpers/launch-context.js';
import { scriptCacheProbe } from '../../../../test/helpers/script-cache-probe.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/**
 * What the built fed-agent spends its start on, counted, for one small run (a `fed run --parallel` runs
 * one per team): the compiled code of its bundle comes from the code cache the build made
 * (packages/fed-agent/src/bin.ts), and V8's optimising compilers (TurboFan; from Node 22 Maglev too) compile only
 * what stays hot (src/infra/v8/tiering.ts) — with V8's defaults about 100 functions, most of them
 * the Markdown parser's, compiled on another thread for code that had finished by then.
 */
const MISSION = { subject: 'Survey the codebase', body: 'Read-only study.' };

/** The built agent run once for a fresh team's mission, with `nodeArgs` and `env`; its stdout. */
async function agentRun(nodeArgs: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
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
  const run = spawnSync(process.execPath, [...nodeArgs, builtBin('fed-agent')], {
    cwd: team.location,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      FED_LAUNCH_CONTEXT: context,
      FED_TELEMETRY_ENABLED: 'false',
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(existsSync(join(team.location, 'deliverable.md'))).toBe(true);
  return run.stdout;
}

describe('fed-agent: what its start costs', () => {
  it("runs its bundle from the build's code cache, which V8 accepts", async () => {
    const probe = scriptCacheProbe();
    await agentRun([], probe.env);
    const agentBundle = join(dirname(builtBin('fed-agent')), 'agent.cjs');
    // The `fed event`s it runs (no broker here) compile fed's own bundle: not counted.
    expect(probe.compilesOf(agentBundle)).toEqual([{ file: agentBundle, cached: true, rejected: false }]);
  }, 90_000);

  it("compiles a handful of functions with V8's optimising compilers in a small run, not a hundred", async () => {
    // `--trace-opt` (given to this node, before the agent's own flags) prints each compile, by target:
    // TurboFan, and from Node 22 Maglev too.
    const optimised = (stdout: string) =>
      (stdout.match(/^\[completed compiling .*\(target (?:TURBOFAN|MAGLEV)/gm) ?? []).length;
    const tuned = optimised(await agentRun(['--trace-opt']));
    const v8Defaults = optimised(await agentRun(['--trace-opt'], { FED_V8_TIERING: 'off' }));
    // At least one each: a change in V8's trace format would otherwise make this pass on nothing.
    expect(tuned).toBeGreaterThan(0);
    expect(tuned).toBeLessThanOrEqual(20);
    // The tuning is what keeps it low, on this Node's V8 (tieringFlags names flags for every line CI runs).
    expect(v8Defaults).toBeGreaterThan(3 * tuned);
  }, 120_000);
});
