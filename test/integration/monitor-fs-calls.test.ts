import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { initFederation, onboardTeam, runActors, sendSignal } = await import('fed');
const { openFederation } = await import('fed');
const { workspacePaths } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { fedInProcess } = await import('../helpers/fed-in-process.js');
const { tempDir } = await import('../helpers/temp-dir.js');

const TEAMS = 6;

/**
 * What one team costs a monitoring cycle, measured on this scenario (teams with a lifecycle and signals,
 * never launched): its inbox and outbox listed once each (the stuck-signal scan takes its candidates from
 * the census's listing), one file opened (its lifecycle, with no stat of its path around the read), its
 * deliverable stat-ed, and the launch files it does not have (agent.json, runs.jsonl, agent.log) only
 * asked after, never opened: 7 calls on its paths. Before: three listings and five opens, four of them
 * failing; then 9 calls, two of them an lstat before and after the lifecycle's read.
 */
const PER_TEAM = { readdirSync: 2, openSync: 1, lstatSync: 0, total: 7 };

describe('fed monitor --json', () => {
  it(`lists each box once and opens one file per team (${TEAMS} teams)`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const fed = openFederation(root);
    const locations: string[] = [];
    for (let t = 0; t < TEAMS; t++) {
      const entry = await onboardTeam(fed, { domain: `team-${t}` }, { durable: false });
      locations.push(entry.location);
      await sendSignal(fed, { to: entry.domainId, type: 'directive', subject: 'Mission' }, { durable: false });
      await sendSignal(fed, { to: entry.domainId, type: 'question', subject: 'Scope?' }, { durable: false });
    }
    await runActors(fed, { once: true, durable: false });
    writeFileSync(join(root, 'federate.config.json'), '{}');

    const {
      value: { code, stdout, stderr },
      calls,
    } = await counted(() => fedInProcess(['monitor', '--json'], root));

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(stdout) as { teams: unknown[] }).teams).toHaveLength(TEAMS);
    for (const location of locations) {
      const own = calls.filter((c) => c.path.startsWith(`${location}/`) || c.path === location);
      const listed = own.map((c) => `${c.op} ${c.path}`).join('\n');
      const count = (op: string) => own.filter((c) => c.op === op).length;
      expect(count('readdirSync'), listed).toBe(PER_TEAM.readdirSync);
      expect(
        own.filter((c) => c.op === 'readdirSync').map((c) => c.path),
        listed,
      ).toEqual(expect.arrayContaining([workspacePaths(location).inbox, workspacePaths(location).outbox]));
      expect(count('openSync'), listed).toBe(PER_TEAM.openSync);
      expect(count('lstatSync'), listed).toBe(PER_TEAM.lstatSync);
      expect(own.length, listed).toBeLessThanOrEqual(PER_TEAM.total);
    }
  });
});
