import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { keepTranscript, localTranscript } from '../../../src/apps/hosts/team-transcripts.js';
import { federationWithMission } from '../../helpers/launch-federation.js';
import { MemoryTeamFiles, MemoryTranscripts, withStores } from '../../helpers/memory-team-files.js';

/** Team docs of a new federation whose backend keeps team files and transcripts in memory. */
async function docsWithStores() {
  const { root } = await federationWithMission({ mission: false });
  const transcripts = new MemoryTranscripts();
  const fed = withStores(root, { teamFiles: new MemoryTeamFiles(), transcripts });
  const team = await fed.team('docs');
  const runs = workspacePaths(team.location).runTranscripts;
  mkdirSync(runs, { recursive: true });
  return { fed, team, transcripts, runs };
}

describe("a run's transcript kept in the backend's store and read back from it", () => {
  it('puts a transcript that changed, never one the store has as it is, nor a temp file', async () => {
    const { fed, team, transcripts, runs } = await docsWithStores();
    writeFileSync(join(runs, 'r1.jsonl'), '{"n":1}\n');
    writeFileSync(join(runs, '.r1.prompt.md.123.abcdefabcdef.tmp'), 'half');
    expect(await keepTranscript(fed, team, 'r1.jsonl')).toBe(true);
    expect(await keepTranscript(fed, team, 'r1.jsonl')).toBe(false);
    expect(await keepTranscript(fed, team, '.r1.prompt.md.123.abcdefabcdef.tmp')).toBe(false);
    expect(await keepTranscript(fed, team, 'r9.jsonl')).toBe(false);
    expect(transcripts.puts).toEqual(['r1.jsonl']);
  });

  it("reads a run's file from the workspace, else from the store into the workspace; undefined when neither has it", async () => {
    const { fed, team, transcripts, runs } = await docsWithStores();
    await transcripts.put('docs', 'r2.log', Buffer.from('ran on another host\n'));
    // The path the other host recorded: only its name is this workspace's.
    const fetched = await localTranscript(fed, team, '/elsewhere/.fed/teams/docs/.fed/logs/runs/r2.log');
    expect(fetched).toBe(join(runs, 'r2.log'));
    expect(readFileSync(fetched!, 'utf8')).toBe('ran on another host\n');
    transcripts.files.clear();
    expect(await localTranscript(fed, team, 'r2.log')).toBe(join(runs, 'r2.log'));
    expect(await localTranscript(fed, team, 'r3.log')).toBeUndefined();
    expect(existsSync(join(runs, 'r3.log'))).toBe(false);
  });
});
