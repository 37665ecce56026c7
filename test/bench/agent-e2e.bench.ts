/**
 * The built fed-agent, run as `fed launch` runs it, on the generated 5 000-file repository of
 * agent.bench.ts with the mission a deliverable team gets in the spec's words ("Survey the codebase",
 * "Read-only study."): plan, survey, answer, write and check the document, and report each lifecycle
 * event through real `fed event` calls. The ceiling does the same essential work with nothing else: a bare
 * recursive readdir plus a read of every file. Goal: under 10 s end to end (issue 30). Needs the build
 * (`npm run bench` builds first).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { builtBin, FED_BIN } from '../helpers/fed-cli.js';
import { writeLaunchContext } from '../helpers/launch-context.js';
import { generateRepository, rawReadAll } from './agent.bench.js';
import { percentile, report } from './harness.js';

const ROUNDS = 3;
const MISSION = { subject: 'Survey the codebase', body: 'Read-only study.' };

/** A team with the mission assigned, and the launch context the launcher would write for it. */
async function teamWithMission(root: string, domain: string): Promise<string> {
  await onboardTeam(openFederation(root), { domain }, { durable: false });
  await sendSignal(openFederation(root), { to: domain, type: 'directive', ...MISSION }, { durable: false });
  await runActors(openFederation(root), { once: true, team: domain });
  return writeLaunchContext(root, domain, MISSION);
}

export default async function agentEndToEndBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-agent-e2e-'));
  const bin = mkdtempSync(join(tmpdir(), 'fed-bench-bin-'));
  try {
    const files = generateRepository(root);
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    writeFileSync(join(bin, 'fed'), `#!/bin/sh\nexec "${process.execPath}" "${FED_BIN}" "$@"\n`);
    chmodSync(join(bin, 'fed'), 0o755);
    rawReadAll(root); // warms the page cache for both
    const raw: number[] = [];
    const agent: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const domain = `docs${round}`;
      const contextFile = await teamWithMission(root, domain);
      let t = performance.now();
      rawReadAll(root);
      raw.push(performance.now() - t);
      t = performance.now();
      const run = spawnSync(process.execPath, [builtBin('fed-agent')], {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          FED_ROOT: root,
          FED_TEAM: domain,
          FED_LAUNCH_CONTEXT: contextFile,
          FED_TELEMETRY_ENABLED: 'false',
        },
      });
      agent.push(performance.now() - t);
      if (run.status !== 0) throw new Error(`fed-agent exited ${run.status}: ${run.stdout}${run.stderr}`);
    }
    const median = (samples: number[]) =>
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      );
    report({
      name: `fed-agent end to end, ${files} files ("Survey the codebase")`,
      value: median(agent),
      unit: 'ms',
      ceiling: { name: 'bare readdir + read', value: median(raw) },
      goal: '≤ 10 000 ms',
      met: median(agent) <= 10_000,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  }
}
