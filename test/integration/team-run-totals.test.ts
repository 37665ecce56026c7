import { appendFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initFederation, onboardTeam, openFederation, type RegistryEntry } from 'fed';
import { type LaunchRun, launchRunSchema, readRunHistory, teamRunTotals, totalRuns, workspacePaths } from 'fed/testing';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { launchRunRecord } from '../helpers/launch-runs.js';
import { tempDir } from '../helpers/temp-dir.js';

afterEach(() => vi.restoreAllMocks());

/** Run `i`: costs with fractions (added in order, they must come to the same float), some unreported. */
function run(i: number): LaunchRun {
  const at = Date.UTC(2026, 0, 1) + i * 60_000;
  return launchRunRecord(i, {
    preset: i % 3 === 0 ? 'gemini' : 'claude',
    turns: i % 5 === 0 ? null : 3 + (i % 7),
    inputTokens: 1_000 + i,
    outputTokens: 100 + i,
    costUsd: i % 3 === 0 ? null : 0.01 * ((i % 11) + 0.1),
    endedAt: new Date(at + 1_000 + i).toISOString(),
  });
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => `${JSON.stringify(run(from + k))}\n`).join('');

async function team(): Promise<{ fed: ReturnType<typeof openFederation>; entry: RegistryEntry; journal: string }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const entry = await onboardTeam(fed, { domain: 'helper', archetypeId: 'consultant' }, { durable: false });
  const journal = workspacePaths(entry.location).runsJournal;
  mkdirSync(dirname(journal), { recursive: true });
  return { fed, entry, journal };
}

/** What adding up every run of the journal gives: the totals must always be exactly these. */
const everyRun = (entry: RegistryEntry) => totalRuns(readRunHistory(entry.location));

describe("a team's run totals", () => {
  it('validate only the runs appended since the last reader, and come to what every run adds up to', async () => {
    const { fed, entry, journal } = await team();
    writeFileSync(journal, lines(0, 500));
    const parsed = vi.spyOn(launchRunSchema, 'safeParse');
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(parsed).toHaveBeenCalledTimes(500 + 500);
    parsed.mockClear();
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(parsed).toHaveBeenCalledTimes(0 + 500);

    appendFileSync(journal, lines(500, 503));
    parsed.mockClear();
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(parsed).toHaveBeenCalledTimes(3 + 503);
  });

  it('count a last line still without its newline, and read it again until it has one', async () => {
    const { fed, entry, journal } = await team();
    writeFileSync(journal, lines(0, 20) + JSON.stringify(run(20)));
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(teamRunTotals(fed, entry).runs).toBe(21);
    appendFileSync(journal, `\n${lines(21, 22)}{"torn`);
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    // The torn line gets its newline from the next append (appendJsonLine): it is skipped, never a run.
    appendFileSync(journal, `\n${lines(22, 25)}`);
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(teamRunTotals(fed, entry).runs).toBe(25);
  });

  it('add a journal up again when it is not the one added up: moved aside, shorter, rewritten', async () => {
    const { fed, entry, journal } = await team();
    writeFileSync(journal, lines(0, 40));
    teamRunTotals(fed, entry);
    renameSync(journal, `${journal}.old`);
    writeFileSync(journal, lines(100, 105));
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(teamRunTotals(fed, entry).runs).toBe(5);
    // Rewritten, longer than what was added up, with other runs before the offset.
    writeFileSync(journal, lines(200, 260));
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(teamRunTotals(fed, entry).runs).toBe(60);
  });

  it('are only a cache: a broken, foreign or planted totals file is added up again and replaced', async () => {
    const { fed, entry, journal } = await team();
    const kept = workspacePaths(entry.location).runsTotals;
    writeFileSync(journal, lines(0, 30));
    teamRunTotals(fed, entry);
    const good = readFileSync(kept, 'utf8');
    const forged = JSON.parse(good) as { totals: { runs: number } };
    for (const text of ['{"bytes": 1', JSON.stringify({ ...forged, totals: { ...forged.totals, runs: -1 } }), '[]']) {
      writeFileSync(kept, text);
      expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
      expect(readFileSync(kept, 'utf8')).toBe(good);
    }
    // A link planted at the path is neither followed nor written through.
    const elsewhere = `${tempDir()}/target.json`;
    writeFileSync(elsewhere, good);
    renameSync(kept, `${kept}.moved`);
    symlinkSync(elsewhere, kept);
    appendFileSync(journal, lines(30, 31));
    expect(teamRunTotals(fed, entry)).toEqual(everyRun(entry));
    expect(readFileSync(elsewhere, 'utf8')).toBe(good);
  });
});

describe('fed team show of a team with 5 000 runs', () => {
  it('validates only the runs recorded since the last reader (and the last run it shows)', async () => {
    const { entry, journal } = await team();
    writeFileSync(journal, lines(0, 5_000));
    const expected = everyRun(entry);
    const parsed = vi.spyOn(launchRunSchema, 'safeParse');
    const show = () => fedInProcess(['team', 'show', 'helper', '--json'], dirname(dirname(dirname(entry.location))));
    const first = await show();
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout).runTotals).toEqual(expected);
    parsed.mockClear();
    const again = await show();
    expect(JSON.parse(again.stdout).runTotals).toEqual(expected);
    // Before: every run of the journal, 5 000 parses per show. Now: its last run (`last run`) only.
    expect(parsed.mock.calls.length).toBe(1);
  });
});
