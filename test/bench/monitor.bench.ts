/**
 * A monitoring cycle over 200 teams with 1 000 signals each (half acknowledged), beside the raw ceiling
 * measured in the same run: listing every inbox and outbox. Goal: under a second — counting and ack
 * checks go by file names, never by reading signal bodies.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, runMonitorCycle } from '../../src/index.js';
import { loadConfig } from '../../src/infra/config/load-config.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { workspacePaths } from '../../src/core/layout.js';
import { report } from './harness.js';
import { openFederation } from '../../src/engine/context.js';

const TEAMS = 200;
const SIGNALS = 1_000;

export default async function monitorBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-monitor-'));
  try {
    initFederation(root, {}, {});
    for (let t = 0; t < TEAMS; t++)
      await onboardTeam(openFederation(root), { domain: `team-${t}` }, { durable: false });
    const teams = readRegistry(root).teams;
    // Files are written directly (not sent): the setup would otherwise dominate the run.
    for (const team of teams) {
      const { inbox, outbox } = workspacePaths(team.location);
      mkdirSync(inbox, { recursive: true });
      for (let i = 0; i < SIGNALS; i++) {
        const name = `2026-01-01T${String(Math.floor(i / 60)).padStart(2, '0')}${String(i % 60).padStart(2, '0')}00Z-report-signal-${i}.json`;
        const body = JSON.stringify({
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          timestamp: '2026-01-01T00:00:00.000Z',
          from: 'meta',
          to: team.domainId,
          type: 'report',
          subject: `signal ${i}`,
          body: 'x'.repeat(200),
          protocol: 'file-signal-v1',
        });
        writeFileSync(join(inbox, name), body);
        if (i % 2 === 0)
          writeFileSync(
            join(inbox, `${name}.ack`),
            '{"acknowledged":true,"acknowledged_at":"2026-01-01T00:00:00.000Z"}',
          );
        if (i % 10 === 0) writeFileSync(join(outbox, `${team.domainId}-${name}`), body);
      }
    }
    const config = loadConfig(root, {}).config;

    const listStart = performance.now();
    let listed = 0;
    for (const team of teams) {
      listed +=
        readdirSync(workspacePaths(team.location).inbox).length +
        readdirSync(workspacePaths(team.location).outbox).length;
    }
    const ceilingMs = performance.now() - listStart;

    const start = performance.now();
    const result = await runMonitorCycle(openFederation(root), { config });
    const cycleMs = performance.now() - start;
    if (result.teams.length !== TEAMS || result.totals.unacknowledged !== (TEAMS * SIGNALS) / 2)
      throw new Error('monitor bench: wrong counts');

    report({
      name: `monitoring cycle, ${TEAMS} teams × ${SIGNALS} signals (${listed} files listed)`,
      value: cycleMs,
      unit: 'ms',
      ceiling: { name: 'raw readdir of every box', value: ceilingMs },
      goal: '< 1000 ms',
      met: cycleMs < 1_000,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
