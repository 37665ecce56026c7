import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, sendSignal, viewLifecycle } from 'fed';
import { getTeam, readRegistry, type RunSummary } from 'fed/testing';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { FED_BIN } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed run --parallel 8` applies its agents' events while the others run (issue 53: the run must keep
 * scaling with more cores). Eight sandboxed agents — whose `fed event`s go to their launcher, the `fed run`
 * process, through its broker — each report a first event and then wait for a file
 * (test/fixtures/agents/first-event-then-wait.mjs) that the test writes only once all eight events are
 * applied. A run that applied one agent's events at a time, or held the other agents until one was done,
 * would never get there: the wait below times out naming the teams whose event was not applied.
 */
const TEAMS = Array.from({ length: 8 }, (_, i) => `t${i}`);

async function federation(): Promise<string> {
  const root = typescriptProject(tempDir());
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  writeFileSync(
    join(root, 'federate.config.json'),
    JSON.stringify({ agentCommand: fakeAgent('first-event-then-wait') }),
  );
  for (const domain of TEAMS) {
    await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: domain, type: 'directive', subject: `Document ${domain}`, body: 'Write it.' },
      { durable: false },
    );
  }
  return root;
}

const stateOf = async (root: string, team: string) =>
  (await viewLifecycle(openFederation(root), getTeam(readRegistry(root), team), 1)).state;

describe('fed run --parallel 8', () => {
  it.skipIf(skipWithoutBubblewrap('fed run --parallel 8 (sandboxed agents report through the run)'))(
    "applies every agent's first event while all eight are still running",
    async () => {
      const root = await federation();
      const run = spawn(process.execPath, [FED_BIN, 'run', '--parallel', '8', '--json'], {
        cwd: root,
        env: { ...process.env, FED_ROOT: undefined, FED_TEAM: undefined, FED_TELEMETRY_ENABLED: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => run.on('close', resolve));
      try {
        let waiting: string[] = [];
        await waitFor(
          async () => {
            if (run.exitCode !== null) throw new Error(`fed run ended early (${run.exitCode}): ${stderr}`);
            waiting = [];
            for (const team of TEAMS) if ((await stateOf(root, team)) === 'preparing') waiting.push(team);
            return waiting.length === 0;
          },
          90_000,
          "every agent's first event applied while all of them run",
        ).catch((error: Error) => {
          throw new Error(`${error.message}; not applied for ${waiting.join(', ')}`);
        });
        writeFileSync(join(root, 'go'), '');
        expect(await exited, stderr).toBe(0);
        const summary = JSON.parse(stdout) as RunSummary;
        expect(summary).toMatchObject({ parallel: 8, maxConcurrent: 8, completed: 8, failed: 0 });
      } finally {
        run.kill('SIGKILL');
        await exited;
      }
    },
    180_000,
  );
});
