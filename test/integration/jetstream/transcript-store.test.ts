import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, type Federation, type RegistryEntry } from 'fed';
import {
  emptyRegistry,
  type JetStreamBackend,
  migrateIntoBackend,
  migrateIntoFiles,
  readRunTranscript,
  startUiServer,
  type TranscriptChunk,
  type UiServer,
  updateRegistryIn,
  workspacePaths,
} from 'fed/testing';
import { launchRunRecord } from '../../helpers/launch-runs.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tinyAssets, uiSession } from '../../helpers/ui-server-fixtures.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "runs' transcripts kept in a JetStream object store, read where a moved team looks back";

/** A transcript of `bytes` as an agent streams one: JSON lines, each with some noise so nothing repeats. */
function transcriptOf(bytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${JSON.stringify({ type: 'assistant', n: i, text: randomBytes(96).toString('base64') })}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const nats = () => ({ FED_NATS_URL: server().url, FED_TELEMETRY_ENABLED: 'false' });
  const servers: UiServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((ui) => ui.close()));
  });

  /**
   * A host of federation `federation` on the server: the first onboards team docs, a later one takes it
   * (its workspace here, as a move makes it).
   */
  async function host(federation: string, first: boolean): Promise<{ fed: Federation; docs: RegistryEntry }> {
    const root = tempDir();
    initFederation(root, { federationName: federation }, nats());
    const fed = openFederation(root, { env: nats() });
    if (first) {
      await fed.backend.registry.create(emptyRegistry());
      return { fed, docs: await onboardTeam(fed, { domain: 'docs' }) };
    }
    const location = join(root, '.fed', 'teams', 'docs');
    mkdirSync(location, { recursive: true });
    await updateRegistryIn(fed.backend.registry, (registry) => ({
      ...registry,
      teams: registry.teams.map((team) => (team.domainId === 'docs' ? { ...team, location } : team)),
    }));
    return { fed, docs: (await fed.backend.registry.read()).teams.find((team) => team.domainId === 'docs')! };
  }

  /** Run `runId` recorded in the team's run journal on `fed`'s side, its transcript on the host that ran it. */
  function recordRun(docs: RegistryEntry, runId: string, ranAt: string): void {
    const journal = workspacePaths(docs.location).runsJournal;
    mkdirSync(dirname(journal), { recursive: true });
    const run = launchRunRecord(1, {
      runId,
      transcriptPath: join(ranAt, '.fed', 'logs', 'runs', `${runId}.jsonl`),
      promptPath: join(ranAt, '.fed', 'logs', 'runs', `${runId}.prompt.md`),
    });
    writeFileSync(journal, `${JSON.stringify(run)}\n`);
  }

  it('keeps a multi-MB transcript whole: put, digest, names and get round-trip; a new copy replaces the old', async () => {
    const { fed } = await host('transcripts-round-trip', true);
    const store = fed.backend.transcripts!;
    const big = transcriptOf(6 * 1024 * 1024);
    await store.put('docs', 'r1.jsonl', big);
    await store.put('docs', 'r1.prompt.md', Buffer.from('# the prompt\n'));
    await store.put('docsx', 'r1.jsonl', Buffer.from('another team, one whose id starts the same\n'));

    const back = await store.get('docs', 'r1.jsonl');
    expect(back?.length).toBe(big.length);
    expect(Buffer.from(back!).equals(big)).toBe(true);
    expect(await store.digest('docs', 'r1.jsonl')).toBe(createHash('sha256').update(big).digest('hex'));
    expect((await store.names('docs')).sort()).toEqual(['r1.jsonl', 'r1.prompt.md']);
    expect(await store.get('docs', 'r2.jsonl')).toBeUndefined();
    expect(await store.digest('docs', 'r2.jsonl')).toBeUndefined();

    const grown = Buffer.concat([big, transcriptOf(1024)]);
    await store.put('docs', 'r1.jsonl', grown);
    expect(Buffer.from((await store.get('docs', 'r1.jsonl'))!).equals(grown)).toBe(true);
  }, 60_000);

  it('a transcript bigger than the store allows is refused by name, the copy before standing whole', async () => {
    const { fed } = await host('transcripts-full', true);
    const store = fed.backend.transcripts!;
    await store.put('docs', 'r1.jsonl', Buffer.from('{"type":"start"}\n'));
    // An operator's limit on the store's stream: 1 MiB in all.
    const { session } = await (fed.backend as JetStreamBackend).streams();
    const stream = 'OBJ_fed_transcripts-full_transcripts';
    const { config } = await session.jsm.streams.info(stream);
    await session.jsm.streams.update(stream, { ...config, max_bytes: 1024 * 1024 });

    await expect(store.put('docs', 'r1.jsonl', transcriptOf(3 * 1024 * 1024))).rejects.toThrow(
      /^docs's r1\.jsonl \(\d+ bytes\) was not kept in .*object store fed_transcripts-full_transcripts, which refused it \(.*\); the copy kept before, if any, stands$/,
    );
    expect(Buffer.from((await store.get('docs', 'r1.jsonl'))!).toString()).toBe('{"type":"start"}\n');
    // Its chunks went with it: the store has room for the next copy that fits.
    await store.put('docs', 'r2.jsonl', transcriptOf(512 * 1024));
    expect((await store.names('docs')).sort()).toEqual(['r1.jsonl', 'r2.jsonl']);
  }, 60_000);

  it("a moved team's run: fed runs show and the dashboard's transcript route read the store's copy, fetched once into the workspace", async () => {
    const alpha = await host('transcripts-moved', true);
    const beta = await host('transcripts-moved', false);
    const transcript = transcriptOf(400 * 1024);
    // Alpha ran it and kept its files; beta has the run in its journal (the team's files arrived) but not the transcript.
    await alpha.fed.backend.transcripts!.put('docs', 'run-a.jsonl', transcript);
    await alpha.fed.backend.transcripts!.put('docs', 'run-a.prompt.md', Buffer.from('# do the docs\n'));
    recordRun(beta.docs, 'run-a', alpha.docs.location);
    const cached = join(workspacePaths(beta.docs.location).runTranscripts, 'run-a.jsonl');
    expect(existsSync(cached)).toBe(false);

    const ui = await startUiServer(beta.fed, { assetsDir: tinyAssets() });
    servers.push(ui);
    const { origin, cookie } = uiSession(ui);
    const response = await fetch(`${origin}/api/teams/docs/transcript?from=0`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const chunk = (await response.json()) as TranscriptChunk;
    expect(chunk).toMatchObject({ runId: 'run-a', ended: true });
    // One answer carries at most 256 KiB, cut at a whole line; the page asks for the rest from `next`.
    expect(transcript.subarray(0, chunk.next).toString('utf8')).toBe(chunk.text);
    expect(chunk.next).toBeGreaterThan(0);
    expect(readFileSync(cached).equals(transcript)).toBe(true);

    const shown = await readRunTranscript(beta.fed, 'run-a');
    expect(shown).toMatchObject({ team: 'docs', path: cached });
    expect(shown.content.equals(transcript)).toBe(true);
    expect((await readRunTranscript(beta.fed, 'run-a', { prompt: true })).content.toString()).toBe('# do the docs\n');
    // A run neither side has: refused by name, saying where it looked.
    await expect(readRunTranscript(beta.fed, 'run-z', { team: 'docs' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(
        /^no run run-z in the run journal of team docs on this machine, and no transcript of it kept in .*object store fed_transcripts-moved_transcripts/,
      ),
    });
  }, 60_000);

  it('fed migrate carries the transcripts: to-jetstream keeps each, to-files writes those a workspace lacks', async () => {
    const root = tempDir();
    initFederation(root, { federationName: 'transcripts-migrate' }, { FED_TELEMETRY_ENABLED: 'false' });
    const docs = await onboardTeam(openFederation(root, { env: {} }), { domain: 'docs' });
    const runs = workspacePaths(docs.location).runTranscripts;
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, 'run-1.jsonl'), '{"type":"result"}\n');
    writeFileSync(join(runs, 'run-1.prompt.md'), '# prompt\n');
    const shared = openFederation(root, { env: nats() });
    expect(await migrateIntoBackend(shared)).toMatchObject({ transcripts: 2 });
    // Again: nothing changed, nothing put.
    expect(await migrateIntoBackend(shared)).toMatchObject({ transcripts: 0 });

    const elsewhere = tempDir();
    initFederation(elsewhere, { federationName: 'transcripts-migrate' }, nats());
    expect(await migrateIntoFiles(openFederation(elsewhere, { env: nats() }))).toMatchObject({ transcripts: 2 });
    const [moved] = (await openFederation(elsewhere, { env: {} }).backend.registry.read()).teams;
    expect(readFileSync(join(workspacePaths(moved!.location).runTranscripts, 'run-1.jsonl'), 'utf8')).toBe(
      '{"type":"result"}\n',
    );
  }, 60_000);
});
