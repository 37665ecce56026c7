import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { mkdirSync, renameSync, writeFileSync } = await import('node:fs');
const { dirname } = await import('node:path');
const { initFederation, onboardTeam, openFederation } = await import('fed');
const { teamRunTotals, totalRuns, workspacePaths } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { launchRunRecord } = await import('../helpers/launch-runs.js');
const { tempDir } = await import('../helpers/temp-dir.js');

/**
 * A team never launched has no run journal, and a dashboard starting over a thousand of them asks each for
 * its totals: one look at the journal's path, without the exceptions two failed opens throw (~60 µs a team).
 */
describe('the run totals of a team without a run journal', () => {
  it('are none, from one stat of the journal: neither it nor kept totals are opened', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const entry = await onboardTeam(fed, { domain: 'helper' }, { durable: false });
    const { runsJournal, runsTotals } = workspacePaths(entry.location);
    expect((await counted(async () => teamRunTotals(fed, entry))).value).toEqual(totalRuns([]));

    // Totals kept of a journal since moved aside: with no journal, no run counts.
    mkdirSync(dirname(runsJournal), { recursive: true });
    writeFileSync(runsJournal, `${JSON.stringify(launchRunRecord(1))}\n`);
    expect(teamRunTotals(fed, entry).runs).toBe(1);
    renameSync(runsJournal, `${runsJournal}.old`);
    const { value, calls } = await counted(async () => teamRunTotals(fed, entry));
    expect(value).toEqual(totalRuns([]));
    expect(calls.filter((call) => call.path === runsJournal || call.path === runsTotals)).toEqual([
      { op: 'statSync', path: runsJournal },
    ]);
  });
});
