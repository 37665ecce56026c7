import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFederation, openFileBackend, SIGNAL_PROTOCOL, type SignalParty, teamWorkspacePath } from 'fed/testing';
import { type FederationBackend, initFederation, onboardTeam, openFederation, type RegistryEntry } from 'fed';
import { tempDir } from '../../helpers/temp-dir.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';
import { useJetStreamBackends } from '../../helpers/jetstream-backends.js';

const SUITE = 'copying a federation between backends (files and JetStream)';

const entry = (id: string): RegistryEntry => ({
  domain: id,
  domainId: id,
  archetypeId: 'deliverable',
  placementType: 'directory',
  onboardedAt: '2026-11-22T10:00:00.000Z',
  location: `/srv/fed/.fed/teams/${id}`,
  status: 'active',
});
const meta: SignalParty = { id: 'meta', entry: undefined };

/** A federation with two teams, signals both ways (some acknowledged), a lifecycle and its journal. */
async function populate(backend: FederationBackend, registered?: RegistryEntry[]): Promise<void> {
  const teams = registered ?? [entry('docs'), entry('ops')];
  if (!registered) {
    await backend.registry.create({ lastUpdated: new Date().toISOString(), lockVersion: 0, teams: [] });
    await backend.registry.commit(0, { lastUpdated: '', lockVersion: 0, teams });
  }
  const party = (team: RegistryEntry): SignalParty => ({ id: team.domainId, entry: team });
  for (let i = 0; i < 6; i++) {
    const to = teams[i % 2]!;
    await backend.signals.send(
      {
        id: randomUUID(),
        timestamp: `2026-11-22T10:00:0${i}.000Z`,
        from: 'meta',
        to: to.domainId,
        type: 'directive',
        subject: `task ${i}`,
        body: `${i}`,
        protocol: SIGNAL_PROTOCOL,
      },
      { from: meta, to: party(to) },
    );
  }
  await backend.signals.send(
    {
      id: randomUUID(),
      timestamp: '2026-11-22T10:01:00.000Z',
      from: 'docs',
      to: 'meta',
      type: 'report',
      subject: 'done',
      body: '',
      protocol: SIGNAL_PROTOCOL,
    },
    { from: party(teams[0]!), to: meta },
  );
  const docsInbox = backend.signals.inbox(party(teams[0]!));
  const [first] = (await docsInbox.pending()).signals;
  await docsInbox.acknowledge([first!], { now: () => new Date('2026-11-22T11:00:00.000Z') });
  // Run 1 ended and was kept (as fed team retry does), then run 2 went on.
  const docs = teams[0]!;
  const envelope = (seq: number, value: string) => ({
    machineId: 'deliverable',
    machineVersion: 1,
    snapshot: { value },
    seq,
    processed: [],
    journalTail: [],
    pendingReports: [],
    savedAt: `2026-11-22T10:0${seq}:00.000Z`,
  });
  await backend.lifecycles.exclusive(docs, async (section) => {
    const first = await backend.lifecycles.write(docs, envelope(1, 'failed'), null, section);
    await backend.lifecycles.appendJournal(docs, [
      { seq: 1, at: '2026-11-22T10:04:00.000Z', event: 'FAIL', from: 'preparing', to: 'failed', source: 'event' },
    ]);
    await backend.lifecycles.keepRun(docs, section);
    await backend.lifecycles.write(docs, envelope(2, 'scanning'), first, section);
  });
  await backend.lifecycles.appendJournal(docs, [
    { seq: 2, at: '2026-11-22T10:05:00.000Z', event: 'PLANNED', from: 'preparing', to: 'scanning', source: 'event' },
  ]);
  await backend.journal.append({
    kind: 'onboarded',
    team: 'docs',
    archetype: 'deliverable',
    placement: 'directory',
    location: docs.location,
    at: '2026-11-22T09:00:00.000Z',
  });
  await backend.journal.append({
    kind: 'retried',
    team: 'docs',
    run: 2,
    mission: 'task 0',
    keptAs: ['run-1'],
    at: '2026-11-22T10:04:30.000Z',
  });
}

/** Everything a copy must carry over, read through the ports. */
async function snapshot(backend: FederationBackend) {
  const registry = await backend.registry.read();
  const parties: SignalParty[] = [meta, ...registry.teams.map((team) => ({ id: team.domainId, entry: team }))];
  const boxes: Record<string, unknown> = {};
  for (const party of parties) {
    boxes[`${party.id} inbox`] = (await backend.signals.inbox(party).list()).signals.map((s) => s.message);
    boxes[`${party.id} outbox`] = (await backend.signals.outbox(party).list()).signals.map((s) => s.message.id);
  }
  const lifecycles: Record<string, unknown> = {};
  for (const team of registry.teams) {
    const kept = await backend.lifecycles.keptRuns(team);
    lifecycles[team.domainId] = {
      envelope: (await backend.lifecycles.read(team))?.envelope,
      journal: await backend.lifecycles.journal(team),
      kept: await Promise.all(
        kept.map(async ({ run, envelope }) => ({
          run,
          envelope,
          journal: await backend.lifecycles.journal(team, run),
        })),
      ),
    };
  }
  const journal = (await backend.journal.read()).map(
    ({ location: _location, ...record }: Record<string, unknown>) => record,
  );
  return { teams: registry.teams, boxes, lifecycles, journal };
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const { open } = useJetStreamBackends(server);

  it('copies every signal, acknowledgment (with its time) and lifecycle state; a second run copies nothing', async () => {
    const source = open('source');
    await populate(source);
    const target = open('target');
    const result = await copyFederation(source, target);
    expect(result).toMatchObject({
      teams: 2,
      signals: 7,
      acknowledgments: 1,
      lifecycles: 1,
      keptRuns: 1,
      journalLines: 2,
      federationRecords: 2,
      invalid: [],
    });
    expect(await snapshot(target)).toEqual(await snapshot(source));
    expect(await copyFederation(source, target)).toMatchObject({
      signals: 0,
      acknowledgments: 0,
      lifecycles: 0,
      keptRuns: 0,
      journalLines: 0,
      federationRecords: 0,
    });
    expect(await snapshot(target)).toEqual(await snapshot(source));
  });

  it('files → JetStream → files: a file federation migrates and exports back with every signal, acknowledgment and lifecycle state', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const teams = [
      await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false }),
      await onboardTeam(openFederation(root), { domain: 'ops' }, { durable: false }),
    ];
    const files = openFileBackend(root);
    await populate(files, teams);

    const jetstream = open('migrated');
    // fed team onboard journaled each team, populate two more records.
    expect(await copyFederation(files, jetstream)).toMatchObject({
      teams: 2,
      signals: 7,
      acknowledgments: 1,
      lifecycles: 1,
      keptRuns: 1,
      journalLines: 2,
      federationRecords: 4,
      invalid: [],
    });
    expect(await snapshot(jetstream)).toEqual(await snapshot(files));

    // Back into a fresh file federation on another root: directory teams move under it.
    const back = tempDir();
    initFederation(back, {}, {});
    const exported = openFileBackend(back);
    const relocate = (team: RegistryEntry) => {
      const location = teamWorkspacePath(back, team.domain, team.placementType);
      mkdirSync(location, { recursive: true });
      return { ...team, location };
    };
    expect(await copyFederation(jetstream, exported, { relocate })).toMatchObject({
      signals: 7,
      acknowledgments: 1,
      lifecycles: 1,
      keptRuns: 1,
      journalLines: 2,
      federationRecords: 4,
    });
    const withoutPlaces = async (backend: FederationBackend) => {
      const { teams: registered, ...rest } = await snapshot(backend);
      return { ...rest, teams: registered.map(({ location: _location, ...team }) => team) };
    };
    expect(await withoutPlaces(exported)).toEqual(await withoutPlaces(files));
    expect((await exported.registry.read()).teams.map((t) => t.location)).toEqual([
      join(back, '.fed', 'teams', 'docs'),
      join(back, '.fed', 'teams', 'ops'),
    ]);
  });

  it('refuses a target that holds another federation, and changes nothing there', async () => {
    const source = open('source2');
    await populate(source);
    const other = open('other');
    await other.registry.create({ lastUpdated: new Date().toISOString(), lockVersion: 0, teams: [] });
    await other.registry.commit(0, { lastUpdated: '', lockVersion: 0, teams: [entry('elsewhere')] });
    const before = await snapshot(other);
    await expect(copyFederation(source, other)).rejects.toMatchObject({ code: 'MIGRATION_TARGET_NOT_EMPTY' });
    expect(await snapshot(other)).toEqual(before);
  });
});
