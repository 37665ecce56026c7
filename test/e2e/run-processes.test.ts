import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, sendSignal } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { packageRoot } from '../../src/infra/package-info.js';
import { builtBin, FED_BIN, runFed } from '../helpers/fed-cli.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The processes a `fed run` of the built-in agent starts, counted by a preload in every node process
 * (test/fixtures/process-usage.cjs): per team its agent, and nothing per event — fed-agent reports each
 * event to its launcher, which applies it itself. A `fed event` process per event (four per team) would
 * show here, and so would a watchdog per team: fed-agent ends itself with its launcher
 * (test/integration/builtin-agent-lifeline.test.ts), so none is started over it.
 */
const USAGE = join(packageRoot(), 'test/fixtures/process-usage.cjs');
const TEAMS = ['api', 'docs'];

async function federation(config: object): Promise<string> {
  const root = typescriptProject(tempDir());
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config));
  for (const domain of TEAMS) {
    await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: domain, type: 'directive', subject: 'Survey the codebase', body: 'Read-only study.' },
      { durable: false },
    );
  }
  return root;
}

/** The node processes of one `fed run`, by the script each ran. */
async function processesOfRun(config: object): Promise<string[]> {
  const root = await federation(config);
  const usage = join(tempDir(), 'processes.jsonl');
  const run = await runFed(['run', '--parallel', '2'], {
    cwd: root,
    env: { NODE_OPTIONS: `--require ${USAGE}`, FED_TEST_PROCESS_USAGE: usage },
    timeoutMs: 120_000,
  });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toContain(`ran ${TEAMS.length} teams`);
  return readFileSync(usage, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv[0]!)
    .sort();
}

describe('fed run with the built-in agent: the processes it starts', () => {
  const expected = [FED_BIN, ...TEAMS.map(() => builtBin('fed-agent'))].sort();

  it('per team, the agent alone — no watchdog, no fed process per event (sandboxed where bwrap works)', async () => {
    expect(await processesOfRun({})).toEqual(expected);
  }, 180_000);

  it('the same without the sandbox (agent.sandbox: false)', async () => {
    expect(await processesOfRun({ agent: { sandbox: false } })).toEqual(expected);
  }, 180_000);
});
