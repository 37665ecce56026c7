import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  acknowledgeSignal,
  applyLifecycleInputs,
  openFederation,
  type RegistryEntry,
  runActors,
  setTeamStatus,
  viewLifecycle,
} from 'fed';
import {
  deliverableEntry,
  loadTeamLifecycle,
  quarantineSignalFile,
  readEnvelope,
  TeamInboxConsumer,
  workspacePaths,
  writeEnvelope,
  writeRegistryStatus,
} from 'fed/testing';
import { blockMetaInbox, docsFederation, sendDirective } from '../helpers/docs-federation.js';
import { runFed } from '../helpers/fed-cli.js';

const federation = docsFederation;

const consume = (root: string) => runActors(openFederation(root), { team: 'docs', once: true, durable: false });
const agent = (root: string, team: RegistryEntry, type: string, data: Record<string, unknown> = {}) =>
  applyLifecycleInputs(openFederation(root), team, [{ source: 'event', event: { type, ...data } }], { durable: false });
const reportsToMeta = (root: string) =>
  readdirSync(workspacePaths(root).inbox)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(readFileSync(join(workspacePaths(root).inbox, f), 'utf8')) as { subject: string }).subject)
    .sort();
const longAgo = (path: string) => utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

describe('owed effects are redone, never lost', () => {
  it('a report to meta that could not be written is carried through later writes and sent once meta can receive', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'mission');
    await consume(root);
    const unblock = blockMetaInbox(root);
    const first = await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    expect(first.warnings).toEqual([
      expect.stringMatching(/reporting "preparing → scanning" to meta for team "docs" failed and will be retried/),
    ]);
    // The next write happens while meta is still unreachable: the owed report must survive it.
    const second = await agent(root, team(), 'SCAN_COMPLETE', { filesRead: 3 });
    expect(second.warnings.length).toBeGreaterThan(0);
    expect(readEnvelope(team().location)?.pendingReports.map((r) => r.subject)).toEqual([
      'preparing → scanning',
      'scanning → distilling',
    ]);
    unblock();
    await agent(root, team(), 'INSIGHTS_READY', { insights: ['x'] });
    expect(reportsToMeta(root)).toEqual(['distilling → aggregating', 'preparing → scanning', 'scanning → distilling']);
  });

  it('an ack of one signal says what the lifecycle still owes (a report meta cannot receive yet), and acknowledges it all the same', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'mission');
    await consume(root);
    blockMetaInbox(root);
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    const owed = /reporting "preparing → scanning" to meta for team "docs" failed and will be retried/;
    const acked = (file: string) => existsSync(join(workspacePaths(team().location).inbox, `${file}.ack`));

    const first = await sendDirective(root, 'first');
    const warnings: string[] = [];
    const results = await acknowledgeSignal(openFederation(root), 'docs', first.message.id, {
      durable: false,
      onWarning: (warning) => warnings.push(warning),
    });
    expect(results.map((ack) => ack.signal.message.id)).toEqual([first.message.id]);
    expect(acked(first.file)).toBe(true);
    expect(warnings.join('\n')).toMatch(owed);

    const second = await sendDirective(root, 'second');
    const cli = await runFed(['--root', root, 'signal', 'ack', second.message.id, '--team', 'docs']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr.split('\n').filter((line) => line.startsWith('warning: '))).toEqual([
      expect.stringMatching(new RegExp(`^warning: ${owed.source}`)),
    ]);
    expect(acked(second.file)).toBe(true);
  });

  it('a torn last journal line is cut off and the line is written again whole', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'mission');
    await consume(root);
    const journal = workspacePaths(team().location).journal;
    // A crash mid-append of seq 2 left a fragment; the envelope still owes that line.
    await agent(root, team(), 'PLAN_READY', { sources: ['src'] });
    const whole = readFileSync(journal, 'utf8');
    const lines = whole.trimEnd().split('\n');
    writeFileSync(journal, `${lines[0]}\n${lines[1]!.slice(0, 20)}`);
    const envelope = readEnvelope(team().location)!;
    await writeEnvelope(
      team().location,
      { ...envelope, savedAt: new Date(Date.parse(envelope.savedAt) + 1).toISOString() },
      { durable: false },
    );
    await agent(root, team(), 'SCAN_COMPLETE', { filesRead: 1 });
    const text = readFileSync(journal, 'utf8');
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { seq: number }).seq),
    ).toEqual([1, 2, 3]);
  });

  it('a kill between the lifecycle write and the registry write is repaired by the next consumer, even with no signal', async () => {
    const { root, team } = await federation();
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' }, { durable: false });
    // As if the process died right after writing the paused lifecycle: the registry still says active.
    await writeRegistryStatus(openFederation(root), 'docs', { type: 'RESUME' }, { durable: false });
    const envelope = readEnvelope(team().location)!;
    await writeEnvelope(
      team().location,
      { ...envelope, savedAt: new Date(Date.parse(envelope.savedAt) + 1).toISOString() },
      { durable: false },
    );
    expect(team().status).toBe('active');
    await consume(root);
    expect(team().status).toBe('paused');
  });
});

describe('archived means archived', () => {
  it('a signal reaching a consumer that started before the team was archived does not change its lifecycle', async () => {
    const { root, team } = await federation();
    const consumer = new TeamInboxConsumer(openFederation(root), team(), { durable: false });
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' }, { durable: false });
    await sendDirective(root, 'mission').catch(() => undefined);
    // The send is refused for an archived team; a signal already in the inbox is what a running consumer meets.
    writeFileSync(
      join(workspacePaths(team().location).inbox, '2026-01-01T000000Z-directive-late.json'),
      JSON.stringify({
        id: '9b2c1f4e-1111-4222-8333-444455556666',
        timestamp: '2026-01-01T00:00:00Z',
        from: 'meta',
        to: 'docs',
        type: 'directive',
        subject: 'late',
        body: '',
        protocol: 'file-signal-v1',
      }),
    );
    await expect(consumer.consume()).rejects.toThrow('team "docs" is archived');
    expect(existsSync(workspacePaths(team().location).envelope)).toBe(false);
    expect((await viewLifecycle(openFederation(root), team())).mission).toBeNull();
  });
});

describe('snapshots that do not fit the machine', () => {
  it('a snapshot missing a context field is refused before use, naming the field', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'mission');
    await consume(root);
    const envelope = readEnvelope(team().location)!;
    const { sources: _dropped, ...context } = (envelope.snapshot as { context: Record<string, unknown> }).context;
    await writeEnvelope(
      team().location,
      { ...envelope, snapshot: { ...envelope.snapshot, context } },
      { durable: false },
    );
    await expect(loadTeamLifecycle(team(), openFederation(root).backend.lifecycles)).rejects.toThrow(
      /lifecycle\.json is corrupt: .*context\.sources/,
    );
  });

  it('an error snapshot on disk is refused, and one is never written', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'mission');
    await consume(root);
    const envelope = readEnvelope(team().location)!;
    const original = deliverableEntry.machine;
    // An action that throws (a bug in a machine) leaves xstate's error snapshot.
    const buggy = vi.spyOn(deliverableEntry, 'machine', 'get').mockReturnValue(
      original.provide({
        actions: {
          recordPlan: () => {
            throw new Error('action bug');
          },
        },
      }) as typeof original,
    );
    try {
      await expect(agent(root, team(), 'PLAN_READY', { sources: ['src'] })).rejects.toThrow(
        /lifecycle failed while applying its inputs \(action bug\); nothing was saved/,
      );
    } finally {
      buggy.mockRestore();
    }
    expect(readEnvelope(team().location)).toEqual(envelope);
    await writeEnvelope(
      team().location,
      { ...envelope, snapshot: { ...envelope.snapshot, status: 'error' } },
      { durable: false },
    );
    await expect(loadTeamLifecycle(team(), openFederation(root).backend.lifecycles)).rejects.toThrow(
      /it is an error snapshot/,
    );
  });
});

describe('slow foreign writers and bad entries', () => {
  it('a signal being written in place is not quarantined mid-write, and is applied once complete', async () => {
    const { root, team } = await federation();
    const file = join(workspacePaths(team().location).inbox, '2026-01-01T000000Z-directive-slow.json');
    const text = JSON.stringify({
      id: '1b2c1f4e-1111-4222-8333-444455556666',
      timestamp: '2026-01-01T00:00:00Z',
      from: 'meta',
      to: 'docs',
      type: 'directive',
      subject: 'slow',
      body: '',
      protocol: 'file-signal-v1',
    });
    writeFileSync(file, text.slice(0, 30));
    // One pass leaves it where it is, waiting (a run with --once reads it again until it settles).
    const first = await new TeamInboxConsumer(openFederation(root), team(), { durable: false }).consume();
    expect(first.quarantined).toEqual([]);
    expect(first.waiting.map((w) => w.file)).toEqual(['2026-01-01T000000Z-directive-slow.json']);
    writeFileSync(file, text);
    await consume(root);
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('slow');
  });

  it('a quarantined file that became a valid signal is moved back and applied', async () => {
    const { root, team } = await federation();
    const file = join(workspacePaths(team().location).inbox, '2026-01-01T000000Z-directive-late.json');
    writeFileSync(file, '{"id": "2b2c1f4e');
    const moved = quarantineSignalFile({ path: file, reason: 'not valid JSON' }, { durable: false });
    // The writer still had the file open: its last bytes land in the quarantined copy (same inode).
    writeFileSync(
      moved.path,
      JSON.stringify({
        id: '2b2c1f4e-1111-4222-8333-444455556666',
        timestamp: '2026-01-01T00:00:00Z',
        from: 'meta',
        to: 'docs',
        type: 'directive',
        subject: 'late',
        body: '',
        protocol: 'file-signal-v1',
      }),
    );
    const [result] = await consume(root);
    expect(result?.restored).toEqual([file]);
    expect(existsSync(moved.path) || existsSync(moved.reasonPath)).toBe(false);
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('late');
  });

  it('a quarantined ack that holds a valid signal stays in quarantine: it would be judged as an ack again', async () => {
    const { root, team } = await federation();
    const ack = join(workspacePaths(team().location).inbox, '2026-01-01T000000Z-directive-x.json.ack');
    writeFileSync(ack, 'garbage');
    const moved = quarantineSignalFile({ path: ack, reason: 'not valid JSON' }, { durable: false });
    writeFileSync(
      moved.path,
      JSON.stringify({
        id: '3b2c1f4e-1111-4222-8333-444455556666',
        timestamp: '2026-01-01T00:00:00Z',
        from: 'meta',
        to: 'docs',
        type: 'directive',
        subject: 'x',
        body: '',
        protocol: 'file-signal-v1',
      }),
    );
    for (let i = 0; i < 2; i++) {
      const [result] = await consume(root);
      expect(result?.restored ?? []).toEqual([]);
    }
    expect(existsSync(moved.path)).toBe(true);
    expect(existsSync(ack)).toBe(false);
  });

  it('a directory or FIFO named like a signal and a garbage ack never stop the actor; the rest flows', async () => {
    const { root, team } = await federation();
    const inbox = workspacePaths(team().location).inbox;
    mkdirSync(join(inbox, '2026-01-01T000000Z-directive-dir.json'));
    execFileSync('mkfifo', [join(inbox, '2026-01-01T000000Z-directive-fifo.json')]);
    const sent = await sendDirective(root, 'mission');
    writeFileSync(`${sent.inboxPath}.ack`, 'garbage');
    longAgo(`${sent.inboxPath}.ack`);
    const [result] = await consume(root);
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('mission');
    expect(result?.warnings).toEqual([
      expect.stringMatching(/skipped .*directive-dir\.json: a directory, not a regular file/),
      expect.stringMatching(/skipped .*directive-fifo\.json: a named pipe \(FIFO\), not a regular file/),
    ]);
    expect(result?.quarantined.map((q) => q.file)).toEqual([`${sent.file}.ack`]);
    expect(JSON.parse(readFileSync(`${sent.inboxPath}.ack`, 'utf8'))).toMatchObject({ acknowledged: true });
  });
});
