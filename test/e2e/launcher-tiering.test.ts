import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, readRegistry } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { surveyFederation } from '../helpers/launch-federation.js';
import { scriptCacheProbe } from '../helpers/script-cache-probe.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The launcher's V8 tiering (src/infra/v8/tiering.ts): `fed run` (like `fed launch` and `fed demo`) sets
 * fed's flags before the `fed` bin compiles its bundle, so V8's optimising compilers compile what stays hot
 * rather than the code of each team's short burst (a launch, an event, a judged document); the code cache it
 * leaves is named for its tiering and accepted by its next run; a bad FED_V8_TIERING is refused before
 * anything runs, and commands that do not launch agents never read it.
 */
const TEAMS = ['api', 'docs'];
const CLI_BUNDLE = join(packageRoot(), 'dist/bin/cli/main.cjs');

/** A federation of TEAMS, each with its mission, run without the sandbox (what is measured is the launcher). */
const federation = () => surveyFederation(TEAMS, { agent: { sandbox: false } });

/** `node <nodeArgs> fed run --parallel 2` in a fresh federation, with `env`: its stdout. */
async function fedRun(nodeArgs: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const root = await federation();
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const run = spawnSync(process.execPath, [...nodeArgs, FED_BIN, 'run', '--parallel', '2'], {
    cwd: root,
    env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toContain(`ran ${TEAMS.length} teams (at most 2 at once): ${TEAMS.length} complete`);
  return run.stdout;
}

describe("fed run: the launcher's V8 tiering", () => {
  it("compiles a few functions with V8's optimising compilers, where V8's own tiering compiles dozens", async () => {
    // `--trace-opt`, given to the launcher's node alone (its agents are node processes of their own),
    // prints each of its compiles, by target: TurboFan, and from Node 22 Maglev too.
    const optimised = (stdout: string) =>
      (stdout.match(/^\[completed compiling .*\(target (?:TURBOFAN|MAGLEV)/gm) ?? []).length;
    const tuned = optimised(await fedRun(['--trace-opt'], {}));
    const v8Defaults = optimised(await fedRun(['--trace-opt'], { FED_V8_TIERING: 'off' }));
    // Counted at all: a change in V8's trace format would otherwise make this pass on nothing.
    expect(v8Defaults).toBeGreaterThan(10);
    expect(tuned * 3).toBeLessThan(v8Defaults);
  }, 240_000);

  it('runs from the code cache its first run left under its tiering, and V8 accepts it; each tiering has its own', async () => {
    const cache = tempDir();
    const probe = scriptCacheProbe();
    const env = { FED_CODE_CACHE: cache, ...probe.env };
    // How the launcher's bundle was compiled in the run just ended (its agents compile bundles of their own).
    const launcherCompile = () => probe.compilesOf(CLI_BUNDLE);
    await fedRun([], env);
    expect(launcherCompile()).toEqual([{ file: CLI_BUNDLE, cached: false, rejected: false }]);
    await fedRun([], env);
    expect(launcherCompile()).toEqual([{ file: CLI_BUNDLE, cached: true, rejected: false }]);
    // V8's own tiering reads and leaves a cache of its own, and leaves the tuned one as it was.
    await fedRun([], { ...env, FED_V8_TIERING: 'off' });
    expect(launcherCompile()).toEqual([{ file: CLI_BUNDLE, cached: false, rejected: false }]);
    await fedRun([], env);
    expect(launcherCompile()).toEqual([{ file: CLI_BUNDLE, cached: true, rejected: false }]);
    expect(readdirSync(cache).filter((file) => /-run(\.v8-defaults)?\.v8cache$/.test(file))).toHaveLength(2);
  }, 240_000);

  it('refuses a FED_V8_TIERING that is neither off nor empty, before anything runs; other commands do not read it', async () => {
    const root = await federation();
    const registry = readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8');
    const refused = await runFed(['run'], { cwd: root, env: { FED_V8_TIERING: 'fast' } });
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'fed: FED_V8_TIERING=fast: expected "off" (V8\'s own tiering) or nothing (fed\'s); unset it or set it to off\n',
    });
    // Nothing started: no team has a run, the registry is as it was.
    expect(readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8')).toBe(registry);
    for (const team of readRegistry(root).teams)
      expect(readdirSync(join(team.location, '.fed'))).not.toContain('launch');
    const listed = await runFed(['team', 'list'], { cwd: root, env: { FED_V8_TIERING: 'fast' } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('docs');
  }, 120_000);
});
