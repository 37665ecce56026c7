import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, type Federation, type RegistryEntry } from 'fed';
import { acquireServeLease, migrateIntoBackend, migrateIntoFiles } from 'fed/testing';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';
import { hostRecord } from '../../helpers/host-record.js';

const SUITE = "fed migrate and what only JetStream keeps: the teams' files, the hosts, the work queue";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const nats = () => ({ FED_NATS_URL: server().url, FED_TELEMETRY_ENABLED: 'false' });

  /** A file federation named `name` with team docs, its deliverable and learning log written. */
  async function fileFederation(name: string): Promise<{ root: string; docs: RegistryEntry }> {
    const root = tempDir();
    initFederation(root, { federationName: name }, { FED_TELEMETRY_ENABLED: 'false' });
    const docs = await onboardTeam(openFederation(root, { env: {} }), { domain: 'docs' });
    const fed = openFederation(root, { env: {} });
    write(deliverableOf(fed, docs), '# the deliverable\n');
    return { root, docs };
  }
  const deliverableOf = (fed: Federation, team: RegistryEntry) => join(team.location, fed.config.deliverable);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  /** A new root that joins federation `name` on the server, as `fed init --name` with FED_NATS_URL does. */
  const joining = (name: string) => {
    const root = tempDir();
    initFederation(root, { federationName: name }, nats());
    return openFederation(root, { env: nats() });
  };

  it("to-jetstream keeps each team's files for a move; to-files writes them where the workspace lacks them, never over its own", async () => {
    const { root, docs } = await fileFederation('mig-files');
    const shared = openFederation(root, { env: nats() });
    const into = await migrateIntoBackend(shared);
    expect(into).toMatchObject({ teams: 1, teamFiles: 1 });
    const kept = await shared.backend.teamFiles!.read('docs');
    expect(new TextDecoder().decode(kept.get('deliverable')?.content)).toBe('# the deliverable\n');

    const elsewhere = joining('mig-files');
    const back = await migrateIntoFiles(elsewhere);
    expect(back).toMatchObject({ teams: 1, teamFiles: 1 });
    const onFiles = openFederation(elsewhere.root, { env: {} });
    const [moved] = (await onFiles.backend.registry.read()).teams;
    expect(moved!.location).not.toBe(docs.location);
    expect(readFileSync(deliverableOf(onFiles, moved!), 'utf8')).toBe('# the deliverable\n');

    // The workspace's own file is newer than the kept copy: a second run leaves it.
    write(deliverableOf(onFiles, moved!), '# written here since\n');
    expect(await migrateIntoFiles(elsewhere)).toMatchObject({ signals: 0, teamFiles: 0 });
    expect(readFileSync(deliverableOf(onFiles, moved!), 'utf8')).toBe('# written here since\n');
  });

  it('is refused while a host serves the federation, naming it, with nothing written; hosts and queued work are not copied', async () => {
    const { root } = await fileFederation('mig-served');
    const shared = openFederation(root, { env: nats() });
    await migrateIntoBackend(shared);
    await shared.backend.work!.offer('docs', 'mission:1');
    const record = hostRecord({ startedAt: '2026-01-01T00:00:00.000Z' });
    await shared.backend.hosts!.put(record);

    const elsewhere = joining('mig-served');
    await expect(migrateIntoFiles(elsewhere)).rejects.toMatchObject({
      code: 'SERVE_RUNNING',
      message: expect.stringMatching(
        /^fed serve runs this federation \(host build-2 \(pid 4242, heard from at .*\)\): .*stop every fed serve of it first/,
      ),
    });
    const onFiles = openFederation(elsewhere.root, { env: {} });
    await expect(onFiles.backend.registry.read()).rejects.toMatchObject({ code: 'NOT_A_FEDERATION' });

    // A server here beats as a host too: it is named once, by its lease, as the host name it serves as.
    await shared.backend.hosts!.put({ ...record, pid: process.pid });
    const lease = await acquireServeLease(elsewhere.root, record.name);
    try {
      await expect(migrateIntoFiles(elsewhere)).rejects.toMatchObject({
        code: 'SERVE_RUNNING',
        message: expect.stringMatching(
          new RegExp(`^fed serve runs this federation \\(pid ${process.pid} on build-2 since [^;)]*\\): `),
        ),
      });
    } finally {
      lease.release();
    }

    // Stopped on purpose (SIGTERM): the copy goes through; the stopped host stays behind.
    await shared.backend.hosts!.put({ ...record, stoppedAt: '2026-01-01T01:00:00.000Z' });
    expect(await migrateIntoFiles(elsewhere)).toMatchObject({ teams: 1, teamFiles: 1 });
    expect((await onFiles.backend.registry.read()).teams.map((team) => team.domainId)).toEqual(['docs']);
    expect(onFiles.backend.hosts).toBeUndefined();
    expect(onFiles.backend.work).toBeUndefined();
  });
});
