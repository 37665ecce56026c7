import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { watchTeamFiles } from '../../../src/apps/hosts/watch-team-files.js';
import { waitFor } from '../../helpers/fixture-process.js';
import { federationWithMission } from '../../helpers/launch-federation.js';
import { launchRunRecord } from '../../helpers/launch-runs.js';
import { MemoryTeamFiles, MemoryTranscripts, withStore, withStores } from '../../helpers/memory-team-files.js';

describe("a team's own files kept as they change while its agent runs", () => {
  it('copies a changed file while watching, and what changed last when stopped', async () => {
    const { root } = await federationWithMission({ mission: false });
    const store = new MemoryTeamFiles();
    const fed = withStore(root, store);
    const team = await fed.team('docs');
    const errors: Error[] = [];
    const watch = watchTeamFiles(fed, team, (error) => errors.push(error));
    const deliverable = join(team.location, 'deliverable.md');
    const kept = () => Buffer.from(store.files.get('docs.deliverable')?.content ?? []).toString('utf8');

    writeFileSync(deliverable, 'part one\n');
    await waitFor(() => kept() === 'part one\n', 10_000, 'the first part kept while watching');
    // Written and stopped at once: the stop copies it, the burst not waited for.
    writeFileSync(deliverable, 'part one\npart two\n');
    await watch.stop();
    expect(kept()).toBe('part one\npart two\n');
    expect(errors).toEqual([]);
    // The unchanged files were never put.
    expect(new Set(store.puts)).toEqual(new Set(['deliverable']));
  });

  it("a launch's end keeps its run's transcript and prompt, what its last lines added included", async () => {
    const { root } = await federationWithMission({ mission: false });
    const transcripts = new MemoryTranscripts();
    const fed = withStores(root, { teamFiles: new MemoryTeamFiles(), transcripts });
    const team = await fed.team('docs');
    const runs = workspacePaths(team.location).runTranscripts;
    mkdirSync(runs, { recursive: true });
    const watch = watchTeamFiles(fed, team, (error) => {
      throw error;
    });
    writeFileSync(join(runs, 'r1.jsonl'), '{"n":1}\n{"n":2}\n');
    writeFileSync(join(runs, 'r1.prompt.md'), '# the mission\n');
    const run = launchRunRecord(1, {
      runId: 'r1',
      transcriptPath: join(runs, 'r1.jsonl'),
      promptPath: join(runs, 'r1.prompt.md'),
    });
    writeFileSync(workspacePaths(team.location).runsJournal, `${JSON.stringify(run)}\n`);
    await watch.stop();
    expect(transcripts.files.get('docs/r1.jsonl')?.toString()).toBe('{"n":1}\n{"n":2}\n');
    expect(transcripts.files.get('docs/r1.prompt.md')?.toString()).toBe('# the mission\n');
  });
});
