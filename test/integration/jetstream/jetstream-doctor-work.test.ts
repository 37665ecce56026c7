import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyRegistry, type JetStreamBackend } from 'fed/testing';
import { openFederation, runDoctor, type RegistryEntry } from 'fed';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = "fed doctor on JetStream: the unplaced teams' work queue and the hosts";

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  /** A JetStream federation of its own on the test server, with its registry. */
  async function federation(name: string, teams: Partial<RegistryEntry>[] = []) {
    const root = tempDir();
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ federationName: name, backend: { type: 'jetstream', servers: [server().url] } }),
    );
    const fed = openFederation(root);
    const registry = emptyRegistry();
    registry.teams = teams.map(
      (team) =>
        ({
          domain: team.domainId,
          archetypeId: 'deliverable',
          placementType: 'directory',
          onboardedAt: new Date().toISOString(),
          location: join(root, 'elsewhere', team.domainId!),
          status: 'active',
          ...team,
        }) as RegistryEntry,
    );
    expect(await fed.backend.registry.create(registry)).toBe(true);
    return { root, fed, backend: fed.backend as JetStreamBackend };
  }

  const notesOf = async (root: string, prefix: string) =>
    (await runDoctor(openFederation(root))).notes.filter((note) => note.startsWith(prefix));

  it('notes the work queue as not made yet, then what waits in it and what a server took', async () => {
    const { root, backend } = await federation('doctor-work');
    expect(await notesOf(root, 'work queue')).toEqual([
      "work queue FED_doctor-work_WORK: not made yet (the first fed serve with an unplaced team's work makes it)",
    ]);

    await backend.work!.offer('alpha', 'mission:1');
    await backend.work!.offer('beta', 'mission:2');
    expect(await notesOf(root, 'work queue')).toEqual([
      'work queue FED_doctor-work_WORK: 2 waiting, no server has taken work from it yet (the first fed serve with free capacity makes its consumer serve)',
    ]);

    const taken = await backend.work!.take(1_000, 30_000);
    expect(taken?.team).toBe('alpha');
    expect(await notesOf(root, 'work queue')).toEqual([
      'work queue FED_doctor-work_WORK: 1 waiting, 1 taken by a server and not yet acknowledged (work a dead server took goes to another once its ack wait passes)',
    ]);
    await taken!.done();
    const report = await runDoctor(openFederation(root));
    expect(report.findings).toEqual([]);
    expect(report.notes).toContain(
      'work queue FED_doctor-work_WORK: 1 waiting, 0 taken by a server and not yet acknowledged',
    );
    expect(report.notes).toContain('team files fed_doctor-work_files: 0 kept for moves to another host');
    expect(report.notes).toContain(
      'transcripts fed_doctor-work_transcripts: 0.0 MB kept, for looking back at runs of teams moved to another host',
    );
  });

  it('finds a work stream made with limits retention and says how to make it anew', async () => {
    const { root, backend } = await federation('doctor-limits');
    const { session } = await backend.streams();
    await session.jsm.streams.add({ name: 'FED_doctor-limits_WORK', subjects: ['fed.doctor-limits.work.*'] });
    const report = await runDoctor(openFederation(root));
    expect(report.healthy).toBe(false);
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'backend',
        path: `${server().url} stream FED_doctor-limits_WORK`,
        problem: expect.stringMatching(
          /^stream FED_doctor-limits_WORK is not .*limits retention and no limit of message\(s\) per team/,
        ),
        fix: expect.stringContaining('nats stream rm FED_doctor-limits_WORK'),
        fixable: false,
      }),
    ]);
  });

  it("lists an alive host's server as running there and notes a lost host's teams", async () => {
    const { root, backend } = await federation('doctor-hosts', [
      { domainId: 'alpha', host: 'gone-host' },
      { domainId: 'beta', host: 'live-host' },
    ]);
    const record = (name: string, heartbeatMs: number) => ({
      name,
      root: `/srv/${name}`,
      pid: 4242,
      version: '1.0.0',
      capacity: 2,
      running: [],
      startedAt: '2026-01-01T00:00:00.000Z',
      heartbeatMs,
      stoppedAt: null,
    });
    // Lost after three heartbeats of 1 ms: by the time doctor reads it.
    await backend.hosts!.put(record('gone-host', 1));
    await backend.hosts!.put(record('live-host', 60_000));
    const report = await runDoctor(openFederation(root));
    expect(report.servers).toEqual([
      { host: 'live-host', pid: 4242, since: '2026-01-01T00:00:00.000Z', checked: false, heardAt: expect.any(String) },
    ]);
    expect(report.notes.filter((note) => note.startsWith('host '))).toEqual([
      expect.stringMatching(
        /^host gone-host is lost \(not heard from since .*\): nothing runs its teams alpha until it comes back or they move \(fed team move <team> --to <host>, or serve.failover "auto"\)$/,
      ),
    ]);
  });
});
