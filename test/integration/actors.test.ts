import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyLifecycleInputs,
  CorruptFileError,
  initFederation,
  type LifecycleEnvelope,
  onboardTeam,
  openFederation,
  type RegistryEntry,
  runActors,
  sendSignal,
  setTeamStatus,
  viewLifecycle,
} from 'fed';
import {
  acquireTeamLease,
  deliverableEntry,
  getTeam,
  loadTeamLifecycle,
  readEnvelope,
  readRegistry,
  registerSnapshotMigration,
  restoreSnapshot,
  SnapshotVersionError,
  TeamInboxConsumer,
  workspacePaths,
} from 'fed/testing';
import { readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

const ENVELOPE_FIXTURE = new URL('../fixtures/envelopes/deliverable-v1-scanning.json', import.meta.url);

async function federation(archetype = 'deliverable'): Promise<{ root: string; team: () => RegistryEntry }> {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs', archetypeId: archetype });
  return { root, team: () => getTeam(readRegistry(root), 'docs') };
}

const send = (root: string, type: string, subject: string, from = 'meta') =>
  sendSignal(openFederation(root), { to: 'docs', from, type, subject, body: `${subject} body` }, { durable: false });
const consume = (root: string) => runActors(openFederation(root), { team: 'docs', once: true, durable: false });
const agent = (root: string, team: RegistryEntry, type: string, data: Record<string, unknown> = {}) =>
  applyLifecycleInputs(openFederation(root), team, [{ source: 'event', event: { type, ...data } }], { durable: false });

describe('signals → events', () => {
  it('the first directive from meta sets the mission, later ones are recorded, questions recorded, reports change nothing', async () => {
    const { root, team } = await federation();
    await sendSignal(openFederation(root), { to: 'meta', from: 'docs', type: 'report', subject: 'hello' });
    await send(root, 'directive', 'Document the API');
    await send(root, 'directive', 'Also cover errors');
    await send(root, 'question', 'ETA?');
    await onboardTeam(openFederation(root), { domain: 'peer' });
    await sendSignal(openFederation(root), { to: 'docs', from: 'peer', type: 'report', subject: 'fyi' });
    await consume(root);
    const journal = readWholeJournal(team().location);
    expect(journal.map((l) => [l.event, l.from, l.to, l.note ?? ''])).toEqual([
      ['MISSION_ASSIGNED', 'preparing', 'preparing', ''],
      ['DIRECTIVE_RECEIVED', 'preparing', 'preparing', ''],
      ['QUESTION_RECEIVED', 'preparing', 'preparing', ''],
      ['report', 'preparing', 'preparing', 'ignored: a report changes no lifecycle'],
    ]);
    expect(await viewLifecycle(openFederation(root), team())).toMatchObject({
      mission: { subject: 'Document the API' },
      pending: [],
    });
  });

  it('a directive from another team is never the mission', async () => {
    const { root, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'peer' });
    await send(root, 'directive', 'do my bidding', 'peer');
    await consume(root);
    expect(readWholeJournal(team().location).map((l) => l.event)).toEqual(['DIRECTIVE_RECEIVED']);
    expect((await viewLifecycle(openFederation(root), team())).mission).toBeNull();
  });

  it('pause/resume directives (any case) pause and resume; directives while paused wait; registry follows', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    await send(root, 'directive', '  PAUSE ');
    await send(root, 'directive', 'queued work');
    await send(root, 'question', 'queued question');
    await consume(root);
    expect(await viewLifecycle(openFederation(root), team())).toMatchObject({
      state: 'paused',
      pausedFrom: 'scanning',
    });
    expect((await viewLifecycle(openFederation(root), team())).pending.map((p) => p.subject)).toEqual([
      'queued work',
      'queued question',
    ]);
    expect(team().status).toBe('paused');

    await send(root, 'directive', 'Resume');
    await consume(root);
    expect(await viewLifecycle(openFederation(root), team())).toMatchObject({ state: 'scanning', pending: [] });
    expect(team().status).toBe('active');
    expect(
      readWholeJournal(team().location)
        .slice(-4)
        .map((l) => l.event),
    ).toEqual(['PAUSE', 'RESUME', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED']);
  });

  it('signals held during a pause are applied right after the resume, before the signals that came after it', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    // One batch: pause, d1, resume, d2, pause, d3 — a millisecond apart, so the inbox order is defined.
    const start = Date.now();
    const subjects = ['pause', 'd1', 'resume', 'd2', 'pause', 'd3'];
    for (const [i, subject] of subjects.entries()) {
      await sendSignal(
        openFederation(root),
        { to: 'docs', type: 'directive', subject, body: '' },
        { durable: false, now: () => new Date(start + i) },
      );
    }
    await consume(root);
    const notes = (from: number) =>
      readWholeJournal(team().location)
        .slice(from)
        .map((l) => `${l.event}:${l.to}`);
    expect(notes(2)).toEqual([
      'PAUSE:paused',
      'RESUME:scanning',
      'DIRECTIVE_RECEIVED:scanning',
      'DIRECTIVE_RECEIVED:scanning',
      'PAUSE:paused',
    ]);
    expect((await viewLifecycle(openFederation(root), team())).pending.map((p) => p.subject)).toEqual(['d3']);

    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'resume', body: '' },
      { durable: false, now: () => new Date(start + 10) },
    );
    await consume(root);
    expect(notes(7)).toEqual(['RESUME:scanning', 'DIRECTIVE_RECEIVED:scanning']);
    expect((await viewLifecycle(openFederation(root), team())).pending).toEqual([]);
  });

  it('a resume that is not needed is recorded as ignored, with the reason', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'resume');
    await consume(root);
    const [line] = readWholeJournal(team().location);
    expect(line).toMatchObject({ event: 'RESUME', from: 'preparing', to: 'preparing' });
    expect(line?.note).toMatch(/^ignored: RESUME is not accepted in preparing; it accepts /);
  });

  it('invalid inbox files are quarantined with a reason file, and valid ones keep flowing', async () => {
    const { root, team } = await federation();
    const inbox = workspacePaths(team().location).inbox;
    writeFileSync(join(inbox, '2026-01-01T000000Z-directive-broken.json'), '{ not json');
    // Settled: unchanged for a minute (a file changed a moment ago may still be being written).
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(inbox, '2026-01-01T000000Z-directive-broken.json'), minuteAgo, minuteAgo);
    await send(root, 'directive', 'real mission');
    const [result] = await consume(root);
    expect(result?.quarantined).toHaveLength(1);
    const quarantine = join(workspacePaths(team().location).signals, 'quarantine');
    expect(readdirSync(quarantine).sort()).toEqual([
      '2026-01-01T000000Z-directive-broken.json',
      '2026-01-01T000000Z-directive-broken.json.reason.json',
    ]);
    expect(readFileSync(join(quarantine, '2026-01-01T000000Z-directive-broken.json'), 'utf8')).toBe('{ not json');
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('real mission');
  });
});

describe('agent events (fed event)', () => {
  it('moves the lifecycle, reports each state change to meta once, journals every event', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    await agent(root, team(), 'SCAN_COMPLETE', { filesRead: 12 });
    const reports = readdirSync(workspacePaths(root).inbox).filter((f) => f.endsWith('.json'));
    expect(
      reports
        .map(
          (f) => (JSON.parse(readFileSync(join(workspacePaths(root).inbox, f), 'utf8')) as { subject: string }).subject,
        )
        .sort(),
    ).toEqual(['preparing → scanning', 'scanning → distilling']);
    expect(readWholeJournal(team().location).map((l) => l.source)).toEqual(['signal', 'event', 'event']);
  });

  it('refuses an event the state does not accept, naming the state and the accepted events; nothing written', async () => {
    const { root, team } = await federation();
    const before = readEnvelope(team().location);
    await expect(agent(root, team(), 'SCAN_COMPLETE', { filesRead: 1 })).rejects.toThrow(
      /team "docs" is preparing: SCAN_COMPLETE is not accepted in preparing; it accepts .*PLAN_READY/,
    );
    await expect(agent(root, team(), 'PLAN_READY', { sources: [] })).rejects.toThrow(
      /no mission has been applied yet: .*fed signal send --to docs .*fed actors run --team docs --once, or fed launch --team docs\)/,
    );
    expect(readEnvelope(team().location)).toEqual(before);
  });

  it('refuses an event for the state before its data: a caller is never told to add a field, then refused anyway', async () => {
    const { root, team } = await federation();
    await expect(agent(root, team(), 'SCAN_COMPLETE')).rejects.toMatchObject({
      code: 'EVENT_NOT_ACCEPTED',
      message: expect.stringMatching(/^team "docs" is preparing: SCAN_COMPLETE is not accepted in preparing; /),
    });
    // An event the state takes: its data is checked; an unknown type is said as one.
    await expect(agent(root, team(), 'PLAN_READY')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('sources: expected an array'),
    });
    await expect(agent(root, team(), 'NOPE')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // A lifecycle that is over: said so, whatever the data.
    await agent(root, team(), 'FAIL', { reason: 'boom' });
    await expect(agent(root, team(), 'PLAN_READY')).rejects.toThrow(
      'team "docs" is failed: failed is final; the deliverable lifecycle is over and accepts no event',
    );
  });

  it('validates the payload with the event schema and rejects unknown event types', async () => {
    const { root, team } = await federation();
    await expect(agent(root, team(), 'PLAN_READY', { sources: 'src' })).rejects.toThrow(
      /invalid PLAN_READY event for team "docs": sources: expected an array/,
    );
    await expect(agent(root, team(), 'FLY')).rejects.toThrow(
      /unknown event "FLY" for the deliverable lifecycle .* events: .*PLAN_READY/,
    );
  });

  it('a failed lifecycle is final; FAIL keeps the reason and tells meta why', async () => {
    const { root, team } = await federation();
    await agent(root, team(), 'FAIL', { reason: 'source files are corrupted' });
    await expect(agent(root, team(), 'PAUSE')).rejects.toThrow(/failed is final/);
    expect((await viewLifecycle(openFederation(root), team())).failure).toEqual({
      reason: 'source files are corrupted',
      state: 'preparing',
    });
    const [report] = readdirSync(workspacePaths(root).inbox).filter((f) => f.endsWith('.json'));
    expect(readFileSync(join(workspacePaths(root).inbox, report!), 'utf8')).toContain(
      'Reason: source files are corrupted',
    );
  });

  it('archived teams and archetypes without a machine are refused clearly', async () => {
    const { root, team } = await federation();
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' });
    await expect(agent(root, team(), 'PAUSE')).rejects.toThrow('team "docs" is archived');
    const custom = await federation('reviewer');
    await expect(agent(custom.root, custom.team(), 'PAUSE')).rejects.toThrow(
      'archetype "reviewer", which has no lifecycle machine (archetypes with one: deliverable, coding, consultant)',
    );
  });
});

describe('registry status and lifecycle agree', () => {
  it('fed team pause pauses the lifecycle and resume returns to where it was', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    expect(await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' })).toMatchObject({
      from: 'active',
      to: 'paused',
    });
    expect(await viewLifecycle(openFederation(root), team())).toMatchObject({
      state: 'paused',
      pausedFrom: 'scanning',
    });
    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' });
    expect((await viewLifecycle(openFederation(root), team())).state).toBe('scanning');
    expect(team().status).toBe('active');
  });

  it('pausing a team whose lifecycle is over changes only the registry', async () => {
    const { root, team } = await federation();
    await agent(root, team(), 'FAIL', { reason: 'x' });
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' });
    expect(team().status).toBe('paused');
    expect((await viewLifecycle(openFederation(root), team())).state).toBe('failed');
  });
});

describe('crash between saving and its effects', () => {
  it('the next load appends the owed journal lines and sends the owed report exactly once', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    // Simulate a crash right after the envelope write of PLAN_READY: the fixture envelope owes seq 2 and a report.
    const fixture = JSON.parse(readFileSync(ENVELOPE_FIXTURE, 'utf8')) as LifecycleEnvelope;
    const current = readEnvelope(team().location)!;
    writeFileSync(
      workspacePaths(team().location).envelope,
      JSON.stringify({ ...fixture, processed: current.processed }),
    );
    for (let i = 0; i < 2; i++) await agent(root, team(), 'SCAN_COMPLETE', { filesRead: 3 }).catch(() => undefined);
    expect(readWholeJournal(team().location).map((l) => [l.seq, l.event])).toEqual([
      [1, 'MISSION_ASSIGNED'],
      [2, 'PLAN_READY'],
      [3, 'SCAN_COMPLETE'],
    ]);
    const subjects = readdirSync(workspacePaths(root).inbox)
      .filter((f) => f.endsWith('.json'))
      .map(
        (f) => (JSON.parse(readFileSync(join(workspacePaths(root).inbox, f), 'utf8')) as { subject: string }).subject,
      );
    expect(subjects.sort()).toEqual(['preparing → scanning', 'scanning → distilling']);
  });

  it('a signal saved as processed but not acknowledged is acknowledged without being applied again', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'mission');
    await consume(root);
    const inbox = workspacePaths(team().location).inbox;
    const ack = readdirSync(inbox).find((f) => f.endsWith('.ack'))!;
    // The ack is lost (crash before it reached the disk).
    const { rmSync } = await import('node:fs');
    rmSync(join(inbox, ack));
    const [result] = await consume(root);
    expect(result?.acknowledged).toBe(1);
    expect(existsSync(join(inbox, ack))).toBe(true);
    expect(readWholeJournal(team().location)).toHaveLength(1);
  });
});

describe('snapshot envelopes', () => {
  function teamWithEnvelope(root: string, envelope: unknown): RegistryEntry {
    const entry = getTeam(readRegistry(root), 'docs');
    mkdirSync(workspacePaths(entry.location).state, { recursive: true });
    writeFileSync(workspacePaths(entry.location).envelope, JSON.stringify(envelope));
    return entry;
  }

  it('restores the kept v1 envelope fixture with the current machine (guards future machine changes)', async () => {
    const { root } = await federation();
    const entry = getTeam(readRegistry(root), 'docs');
    mkdirSync(workspacePaths(entry.location).state, { recursive: true });
    copyFileSync(ENVELOPE_FIXTURE, workspacePaths(entry.location).envelope);
    const lifecycle = await loadTeamLifecycle(entry, openFederation(root).backend.lifecycles);
    expect(lifecycle.snapshot.value).toBe('scanning');
    expect(lifecycle.snapshot.context).toMatchObject({
      mission: { subject: 'Document the API' },
      sources: ['src', 'docs'],
    });
  });

  it('migrates an older version through registered migrations', () => {
    const fixture = JSON.parse(readFileSync(ENVELOPE_FIXTURE, 'utf8')) as LifecycleEnvelope;
    // Pretend the machine is now v2, where v1's `scanning` was renamed; the migration moves old snapshots over.
    const v2 = { ...deliverableEntry, version: 2 };
    const unregister = registerSnapshotMigration('deliverable', 1, (envelope) => ({
      ...envelope,
      machineVersion: 2,
      snapshot: { ...envelope.snapshot, value: 'distilling' },
    }));
    try {
      expect(restoreSnapshot(fixture, v2, 'fixture.json').value).toBe('distilling');
    } finally {
      unregister();
    }
    expect(() => restoreSnapshot(fixture, v2, 'fixture.json')).toThrow(SnapshotVersionError);
  });

  it('refuses an unknown version with a clear error and keeps the file', async () => {
    const { root } = await federation();
    const fixture = JSON.parse(readFileSync(ENVELOPE_FIXTURE, 'utf8')) as LifecycleEnvelope;
    const entry = teamWithEnvelope(root, { ...fixture, machineVersion: 99 });
    const before = readFileSync(workspacePaths(entry.location).envelope, 'utf8');
    await expect(loadTeamLifecycle(entry, openFederation(root).backend.lifecycles)).rejects.toThrow(
      /holds a deliverable snapshot of version 99, but this fed has version 1 and no migration from 99; the file is kept/,
    );
    await expect(consume(root)).rejects.toThrow(SnapshotVersionError);
    expect(readFileSync(workspacePaths(entry.location).envelope, 'utf8')).toBe(before);
  });

  it('a snapshot whose state the machine does not have is a clear CorruptFileError, not an uncaught xstate error', async () => {
    const { root } = await federation();
    const fixture = JSON.parse(readFileSync(ENVELOPE_FIXTURE, 'utf8')) as LifecycleEnvelope;
    const entry = teamWithEnvelope(root, { ...fixture, snapshot: { ...fixture.snapshot, value: 'daydreaming' } });
    await expect(loadTeamLifecycle(entry, openFederation(root).backend.lifecycles)).rejects.toThrow(CorruptFileError);
    await expect(loadTeamLifecycle(entry, openFederation(root).backend.lifecycles)).rejects.toThrow(
      /does not fit the deliverable machine v1/,
    );
  });

  it('a state file of another machine is refused', async () => {
    const { root } = await federation('coding');
    const fixture = JSON.parse(readFileSync(ENVELOPE_FIXTURE, 'utf8')) as LifecycleEnvelope;
    const entry = teamWithEnvelope(root, fixture);
    await expect(loadTeamLifecycle(entry, openFederation(root).backend.lifecycles)).rejects.toThrow(
      /holds a deliverable lifecycle, but the team's archetype uses coding/,
    );
  });
});

describe('running every team', () => {
  it("one team's corrupt state is reported and skipped; the other teams keep flowing", async () => {
    const { root, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'other' });
    mkdirSync(workspacePaths(team().location).state, { recursive: true });
    writeFileSync(workspacePaths(team().location).envelope, '{ broken');
    await sendSignal(openFederation(root), { to: 'other', type: 'directive', subject: 'work' });
    const skipped: string[] = [];
    await runActors(openFederation(root), { once: true, onSkip: (id, reason) => skipped.push(`${id}: ${reason}`) });
    expect(skipped).toEqual([expect.stringMatching(/^docs: .*lifecycle\.json is corrupt/)]);
    expect((await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'other'))).mission?.subject).toBe(
      'work',
    );
    await expect(runActors(openFederation(root), { team: 'docs', once: true })).rejects.toThrow(
      'lifecycle.json is corrupt',
    );
  });
});

describe('one consumer per team', () => {
  it('a second consumer of the same team is refused while the first holds the lease', async () => {
    const { root, team } = await federation();
    const lease = await acquireTeamLease(team(), 'consumer');
    await expect(runActors(openFederation(root), { team: 'docs', once: true })).rejects.toThrow(
      /team "docs" is already being run by another process .* only one actor consumer per team/,
    );
    // Running every team skips the busy one instead of failing.
    await expect(runActors(openFederation(root), { once: true })).resolves.toEqual([]);
    lease.release();
    await expect(runActors(openFederation(root), { team: 'docs', once: true })).resolves.toHaveLength(1);
  });

  it('the consumer batches: one envelope write per batch, not per signal', async () => {
    const { root, team } = await federation();
    // Two seconds of five signals each: a batch is cut only between the seconds signal files are named for.
    for (let i = 0; i < 10; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 10, 0, i < 5 ? 0 : 1, i));
      await sendSignal(
        openFederation(root),
        { to: 'docs', from: 'meta', type: 'question', subject: `q${i}`, body: `q${i} body` },
        { durable: false, now: () => at },
      );
    }
    const consumer = new TeamInboxConsumer(openFederation(root), team(), { batchSize: 5, durable: false });
    const result = await consumer.consume();
    expect(result.acknowledged).toBe(10);
    expect(readEnvelope(team().location)?.journalTail).toHaveLength(5);
  });
});
