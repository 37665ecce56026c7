import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initFederation, onboardTeam, openFederation, registrySchema, sendSignal } from 'fed';
import {
  federationPaths,
  FOLD_FROM_BYTES,
  getTeam,
  readRegistry,
  readTeamActivity,
  teamActivityLineSchema,
  writeRegistryStatus,
} from 'fed/testing';
import { startFixture } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const ONBOARDED = new Date('2026-01-01T00:00:00Z');

afterEach(() => vi.restoreAllMocks());

/** A federation of `teams` teams onboarded at ONBOARDED. */
async function federation(teams: readonly string[]): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, {});
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, { now: () => ONBOARDED });
  return root;
}

const store = (root: string) => openFederation(root).backend.registry;
const fileRegistry = (root: string) =>
  registrySchema.parse(JSON.parse(readFileSync(federationPaths(root).registry, 'utf8')));
const lastActive = (root: string, team: string) => getTeam(readRegistry(root), team).lastActive;

describe("a team's activity beside the registry (lastActive)", () => {
  it('is a line appended, not a registry write; reads give the latest as lastActive, and the next write takes it in', async () => {
    const root = await federation(['docs', 'api']);
    await store(root).touchActivity!('docs', '2026-01-01T00:05:00.000Z');
    await store(root).touchActivity!('docs', '2026-01-01T00:07:00.000Z');
    // An earlier time (another process's clock) never takes lastActive back.
    await store(root).touchActivity!('docs', '2026-01-01T00:06:00.000Z');
    expect(fileRegistry(root).lockVersion).toBe(2);
    expect(lastActive(root, 'docs')).toBe('2026-01-01T00:07:00.000Z');
    expect(lastActive(root, 'api')).toBe(ONBOARDED.toISOString());
    expect((await store(root).read()).teams.map((t) => t.lastActive)).toEqual([
      '2026-01-01T00:07:00.000Z',
      ONBOARDED.toISOString(),
    ]);

    await writeRegistryStatus(
      openFederation(root),
      'api',
      { type: 'PAUSE' },
      { now: () => new Date('2026-01-01T00:01:00Z') },
    );
    expect(fileRegistry(root)).toMatchObject({
      lockVersion: 3,
      teams: [
        { domainId: 'docs', lastActive: '2026-01-01T00:07:00.000Z' },
        { domainId: 'api', status: 'paused', lastActive: '2026-01-01T00:01:00.000Z' },
      ],
    });
    expect(existsSync(federationPaths(root).teamActivity)).toBe(false);
    expect(existsSync(federationPaths(root).teamActivityFolding)).toBe(false);
  });

  it('is left where it is by a write that is refused or changes nothing', async () => {
    const root = await federation(['docs']);
    await store(root).touchActivity!('docs', '2026-01-01T00:05:00.000Z');
    await expect(writeRegistryStatus(openFederation(root), 'nobody', { type: 'PAUSE' })).rejects.toThrow(/nobody/);
    await store(root).update!(() => undefined);
    expect(existsSync(federationPaths(root).teamActivity)).toBe(true);
    expect(existsSync(federationPaths(root).teamActivityFolding)).toBe(false);
    expect(fileRegistry(root).lockVersion).toBe(1);
    expect(lastActive(root, 'docs')).toBe('2026-01-01T00:05:00.000Z');
  });

  it('past a few KB, an append has the registry take the activity in, so the file stays small', async () => {
    const root = await federation(['docs']);
    const file = federationPaths(root).teamActivity;
    let folds = 0;
    for (let i = 1; folds < 2; i++) {
      const before = fileRegistry(root).lockVersion;
      await store(root).touchActivity!('docs', new Date(ONBOARDED.getTime() + i * 60_000).toISOString(), {
        durable: false,
      });
      if (fileRegistry(root).lockVersion === before) expect(statSync(file).size).toBeLessThan(FOLD_FROM_BYTES);
      else {
        folds++;
        expect(existsSync(file)).toBe(false);
        expect(fileRegistry(root).teams[0]!.lastActive).toBe(new Date(ONBOARDED.getTime() + i * 60_000).toISOString());
      }
    }
  });

  it('skips lines it cannot use (torn, foreign, an unknown team) and folds what a crashed write left', async () => {
    const root = await federation(['docs', 'api']);
    const paths = federationPaths(root);
    // A write that took the file and crashed before writing the registry left it being folded.
    writeFileSync(paths.teamActivityFolding, '{"team":"api","at":"2026-01-01T00:09:00.000Z"}\n');
    writeFileSync(
      paths.teamActivity,
      [
        'not json',
        '{"team":"Not A Team","at":"2026-01-01T00:08:00.000Z"}',
        '{"team":"docs","at":"yesterday"}',
        '{"team":"ghost","at":"2026-01-01T00:08:00.000Z"}',
        '{"team":"docs","at":"2026-01-01T01:02:00+01:00"}',
        '{"team":"docs","at":"2026-01-01T00:',
      ].join('\n'),
    );
    // With an offset, compared as a time: 00:02 UTC.
    expect(lastActive(root, 'docs')).toBe('2026-01-01T01:02:00+01:00');
    expect(lastActive(root, 'api')).toBe('2026-01-01T00:09:00.000Z');
    expect(readRegistry(root).teams.map((t) => t.domainId)).toEqual(['docs', 'api']);

    // The next write folds the left file and lets it go; the current one it leaves for the write after.
    await writeRegistryStatus(openFederation(root), 'docs', { type: 'PAUSE' }, { now: () => ONBOARDED });
    expect(existsSync(paths.teamActivityFolding)).toBe(false);
    expect(existsSync(paths.teamActivity)).toBe(true);
    expect(fileRegistry(root).teams.map((t) => t.lastActive)).toEqual([
      '2026-01-01T01:02:00+01:00',
      '2026-01-01T00:09:00.000Z',
    ]);
    // An append after a torn line starts on a line of its own.
    appendFileSync(paths.teamActivity, '{"team":"docs"');
    await store(root).touchActivity!('docs', '2026-01-01T00:30:00.000Z');
    expect(lastActive(root, 'docs')).toBe('2026-01-01T00:30:00.000Z');
  });

  it("validates only the lines that could be a team's latest: a busy team's file, read from its end", async () => {
    const root = await federation(['docs', 'api']);
    const at = (minute: number) => new Date(ONBOARDED.getTime() + minute * 60_000).toISOString();
    const lines = [`{"team":"api","at":"${at(1)}"}`];
    for (let minute = 1; minute <= 150; minute++) lines.push(`{"team":"docs","at":"${at(minute)}"}`);
    // The latest of docs, and the same time again: not a line the schema takes, then the first of equal ones.
    lines.push(`{"team":"docs","at":"${at(151)}","by":"another tool"}`, `{"team":"docs","at":"${at(150)}"}`);
    writeFileSync(federationPaths(root).teamActivity, `${lines.join('\n')}\n`);
    const validations = vi.spyOn(teamActivityLineSchema, 'safeParse');
    expect(readTeamActivity(root)).toEqual(
      new Map([
        ['docs', at(150)],
        ['api', at(1)],
      ]),
    );
    // docs: the foreign line, the last one and its equal (before: all 152), api: its one line.
    expect(validations).toHaveBeenCalledTimes(4);
  });

  it('is appended once by a command whose sends share one read of the registry (a report owed, then a new one)', async () => {
    const root = await federation(['docs', 'api']);
    const fed = openFederation(root);
    const registry = await fed.backend.registry.read();
    for (const subject of ['Owed report', 'New report'])
      await sendSignal(fed, { from: 'docs', to: 'meta', type: 'report', subject }, { registry, durable: false });
    expect(readFileSync(federationPaths(root).teamActivity, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('processes refreshing activity while others write the registry: no write lost, no activity but the last kept back', async () => {
    const teams = ['t0', 't1', 't2', 't3'];
    const root = await federation(teams);
    const refreshes = 250;
    const touchers = teams.map((team) => startFixture('team-activity-writer.mjs', [root, team, String(refreshes)]));
    const writers = [0, 1].map((i) => startFixture('registry-writer.mjs', [root, `w${i}`, '15']));
    const touched = await Promise.all(touchers.map((p) => p.done));
    for (const result of [...touched, ...(await Promise.all(writers.map((p) => p.done)))])
      expect(result, result.stderr).toMatchObject({ code: 0 });

    const registry = readRegistry(root);
    expect(registry.teams).toHaveLength(teams.length + 30);
    for (const result of touched) {
      const { team, last } = JSON.parse(result.stdout) as { team: string; last: [string, string] };
      // A refresh whose append raced a fold's taking of the file may be lost: never more than the last one.
      expect(last).toContain(getTeam(registry, team).lastActive);
    }
    // The folds kept the file small, and the registry on disk is whole and valid.
    expect(statSync(federationPaths(root).teamActivity, { throwIfNoEntry: false })?.size ?? 0).toBeLessThan(
      2 * FOLD_FROM_BYTES,
    );
    expect(fileRegistry(root).lockVersion).toBeGreaterThan(30);
  });
});
