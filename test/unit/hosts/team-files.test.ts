import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { keepTeamFiles, lastRunOf, restoreTeamFiles } from '../../../src/apps/hosts/team-files.js';
import { federationWithMission } from '../../helpers/launch-federation.js';
import { launchRunRecord } from '../../helpers/launch-runs.js';
import { MemoryTeamFiles, withStore } from '../../helpers/memory-team-files.js';

/** A run journal's line: the run `runId`. */
const run = (i: number, runId: string) => `${JSON.stringify(launchRunRecord(i, { runId }))}\n`;

describe("a team's own files kept in the backend's store", () => {
  it('puts each file once per change and takes back only a later copy than the workspace holds', async () => {
    const { root } = await federationWithMission({ mission: false });
    const store = new MemoryTeamFiles();
    const fed = withStore(root, store);
    const team = await fed.team('docs');
    const deliverable = join(team.location, 'deliverable.md');
    writeFileSync(deliverable, 'first\n');
    expect(await keepTeamFiles(fed, team)).toEqual(['deliverable']);
    expect(await keepTeamFiles(fed, team)).toEqual([]);
    writeFileSync(deliverable, 'second\n');
    expect(await keepTeamFiles(fed, team)).toEqual(['deliverable']);

    // Nothing later in the store: a change here not yet kept stays as it is.
    writeFileSync(deliverable, 'third, not kept yet\n');
    expect(await restoreTeamFiles(fed, team)).toEqual([]);
    expect(readFileSync(deliverable, 'utf8')).toBe('third, not kept yet\n');

    // Another host kept a later copy: it is taken, and recorded as the one held.
    await store.put('docs', 'deliverable', Buffer.from('from beta\n'));
    expect(await restoreTeamFiles(fed, team)).toEqual(['deliverable']);
    expect(readFileSync(deliverable, 'utf8')).toBe('from beta\n');
    expect(await restoreTeamFiles(fed, team)).toEqual([]);
    expect(await keepTeamFiles(fed, team)).toEqual([]);
    // A later copy of what the workspace holds (put, its host stopped before recording it): only recorded.
    await store.put('docs', 'deliverable', Buffer.from('from beta\n'));
    expect(await restoreTeamFiles(fed, team)).toEqual([]);
    expect(JSON.parse(readFileSync(workspacePaths(team.location).keptFiles, 'utf8'))).toEqual({
      files: { deliverable: { revision: 4, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } },
    });
  });

  it("judges an unplaced team's last run from the store's run journal when it is later than the workspace's", async () => {
    const { root } = await federationWithMission({ mission: false });
    const store = new MemoryTeamFiles();
    const fed = withStore(root, store);
    const team = { ...(await fed.team('docs')), host: '*' };
    mkdirSync(workspacePaths(team.location).logs, { recursive: true });
    writeFileSync(workspacePaths(team.location).runsJournal, run(1, 'here'));
    expect((await lastRunOf(fed, team))?.runId).toBe('here');
    await store.put('docs', 'runs-journal', Buffer.from(run(1, 'here') + run(2, 'elsewhere')));
    expect((await lastRunOf(fed, team))?.runId).toBe('elsewhere');
    // A team placed on a host is judged there, from its workspace.
    expect((await lastRunOf(fed, { ...team, host: 'alpha' }))?.runId).toBe('here');
  });
});
