import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SIGNAL_PROTOCOL, type SignalParty } from 'fed/testing';
import {
  LifecycleConflictError,
  type LifecycleEnvelope,
  type Registry,
  RegistryConflictError,
  type RegistryEntry,
  type SignalMessage,
} from 'fed';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';
import { useJetStreamBackends } from '../../helpers/jetstream-backends.js';

const SUITE = 'the JetStream backend against a real nats-server';

const entry = (id: string): RegistryEntry => ({
  domain: id,
  domainId: id,
  archetypeId: 'deliverable',
  placementType: 'directory',
  onboardedAt: '2026-11-22T10:00:00.000Z',
  location: `/srv/fed/.fed/teams/${id}`,
});
const party = (id: string): SignalParty => ({ id, entry: id === 'meta' ? undefined : entry(id) });
const message = (fields: Partial<SignalMessage> = {}): SignalMessage => ({
  id: randomUUID(),
  timestamp: new Date().toISOString(),
  from: 'meta',
  to: 'docs',
  type: 'directive',
  subject: 'write the guide',
  body: 'please',
  protocol: SIGNAL_PROTOCOL,
  ...fields,
});
const envelope = (seq: number): LifecycleEnvelope => ({
  machineId: 'deliverable',
  machineVersion: 1,
  snapshot: { value: 'preparing', status: 'active', context: {} },
  seq,
  processed: [],
  journalTail: [],
  pendingReports: [],
  savedAt: new Date().toISOString(),
});

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();
  const backends = useJetStreamBackends(server);
  const open = async (federationName = 'acme') => backends.open(federationName);

  it('delivers the SignalMessage JSON unchanged, in inbox order, to the recipient only; the stored copy is also the outbox record', async () => {
    const backend = await open('deliver');
    const first = message({ timestamp: '2026-11-22T10:00:00.000Z' });
    const second = message({ timestamp: '2026-11-22T10:00:00.000Z', subject: 'write the guide' });
    const other = message({ to: 'ops' });
    for (const m of [first, second, other]) await backend.signals.send(m, { from: party(m.from), to: party(m.to) });

    const inbox = backend.signals.inbox(party('docs'));
    const listed = await inbox.list();
    expect(listed.invalid).toEqual([]);
    expect(listed.signals.map((s) => s.message)).toEqual([
      { ...first, acknowledged: false },
      { ...second, acknowledged: false },
    ]);
    const outbox = await backend.signals.outbox(party('meta')).list();
    expect(outbox.signals.map((s) => s.message.id)).toEqual([first.id, second.id, other.id]);
    const { session } = await backend.streams();
    const raw = await session.jsm.direct.getMessage(session.names.signalStream, {
      seq: Number(listed.signals[0]!.file),
    });
    expect(raw!.json()).toEqual(first);
  });

  it('the signal id is the message id: a repeated send is deduplicated by the server, a reused id on another signal is refused', async () => {
    const backend = await open('dedupe');
    const m = message();
    const route = { from: party('meta'), to: party('docs') };
    expect((await backend.signals.send(m, route, { idempotent: true })).delivered).toBe(true);
    const again = await backend.signals.send({ ...m, timestamp: new Date(Date.now() + 5_000).toISOString() }, route, {
      idempotent: true,
    });
    expect(again.delivered).toBe(false);
    expect(again.message).toEqual(m);
    // A retry concurrent with the first send carries its very timestamp: still not delivered by this call.
    expect((await backend.signals.send(m, route, { idempotent: true })).delivered).toBe(false);
    await expect(
      backend.signals.send({ ...m, body: 'something else' }, route, { idempotent: true }),
    ).rejects.toMatchObject({ code: 'SIGNAL_ID_REUSED' });
    expect((await backend.signals.inbox(party('docs')).list()).signals).toHaveLength(1);
  });

  it('find by id goes to the sequence the send left as a hint, checked: a hint to another signal or inbox, or none, falls back to reading the inbox', async () => {
    const backend = await open('hint');
    const sent = [];
    for (const to of ['docs', 'docs', 'ops'])
      sent.push(await backend.signals.send(message({ to }), { from: party('meta'), to: party(to) }));
    const [first, second, elsewhere] = sent as [(typeof sent)[0], (typeof sent)[0], (typeof sent)[0]];
    const { delivery, session } = await backend.streams();
    const hintOf = async (id: string) => (await delivery.get(session.names.seqHintKey(id)))?.string();
    expect(await hintOf(first.message.id)).toBe(first.file);
    // Straight to it: the hinted copy, even with the inbox never read.
    expect((await backend.signals.inbox(party('docs')).find(first.message.id)).map((e) => e.file)).toEqual([
      first.file,
    ]);
    // A hint that names another signal of the inbox, or a signal of another inbox, is not trusted.
    await delivery.put(session.names.seqHintKey(second.message.id), first.file);
    expect((await backend.signals.inbox(party('docs')).find(second.message.id)).map((e) => e.file)).toEqual([
      second.file,
    ]);
    await delivery.put(session.names.seqHintKey(first.message.id), elsewhere.file);
    expect((await backend.signals.inbox(party('docs')).find(first.message.id)).map((e) => e.file)).toEqual([
      first.file,
    ]);
    expect(await backend.signals.inbox(party('docs')).find(elsewhere.message.id)).toEqual([]);
    await delivery.purge(session.names.seqHintKey(first.message.id));
    expect((await backend.signals.inbox(party('docs')).find(first.message.id)).map((e) => e.file)).toEqual([
      first.file,
    ]);
  });

  it('acknowledgments read back as acknowledged / acknowledged_at, keep the first time, and agree across two readers', async () => {
    const backend = await open('acks');
    const m = message();
    await backend.signals.send(m, { from: party('meta'), to: party('docs') });
    const reader = backend.signals.inbox(party('docs'));
    const other = (await open('acks')).signals.inbox(party('docs'));
    const [entry1] = (await reader.pending()).signals;
    const [entry2] = (await other.pending()).signals;
    const [a, b] = await Promise.all([
      reader.acknowledge([entry1!], { now: () => new Date('2026-11-22T11:00:00.000Z') }),
      other.acknowledge([entry2!], { now: () => new Date('2026-11-22T11:00:01.000Z') }),
    ]);
    const results = [...a.acknowledged, ...b.acknowledged];
    expect(results.filter((r) => !r.alreadyAcknowledged)).toHaveLength(1);
    const first = results.find((r) => !r.alreadyAcknowledged)!.signal.message.acknowledged_at;
    expect(results.map((r) => r.signal.message.acknowledged_at)).toEqual([first, first]);
    expect((await reader.pending()).signals).toEqual([]);
    const fresh = (await (await open('acks')).signals.inbox(party('docs')).list()).signals;
    expect(fresh.map((s) => [s.message.acknowledged, s.message.acknowledged_at])).toEqual([[true, first]]);
  });

  it('an inbox skips reading back only the acks it wrote itself: one written by another process in between is still seen', async () => {
    const backend = await open('own-acks');
    const sent = [message({ subject: 'one' }), message({ subject: 'two' }), message({ subject: 'three' })];
    for (const m of sent) await backend.signals.send(m, { from: party('meta'), to: party('docs') });
    const reader = backend.signals.inbox(party('docs'));
    const other = (await open('own-acks')).signals.inbox(party('docs'));
    const [one, two, three] = (await reader.pending()).signals;
    await reader.acknowledge([one!]);
    expect((await reader.pending()).signals.map((s) => s.message.subject)).toEqual(['two', 'three']);
    // Another process acknowledges "two" between this inbox's own acks.
    const [otherTwo] = (await other.pending()).signals.filter((s) => s.message.subject === 'two');
    await other.acknowledge([otherTwo!], { now: () => new Date('2026-11-22T12:00:00.000Z') });
    await reader.acknowledge([three!]);
    const listed = (await reader.list()).signals;
    expect(listed.map((s) => [s.message.subject, s.message.acknowledged])).toEqual([
      ['one', true],
      ['two', true],
      ['three', true],
    ]);
    expect(listed[1]!.message.acknowledged_at).toBe('2026-11-22T12:00:00.000Z');
    expect(two!.message.acknowledged).toBe(false);
  });

  it('the journal keeps what was appended across calls that overlap what is stored: nothing twice, nothing skipped', async () => {
    const backend = await open('journal-batches');
    const team = entry('docs');
    const store = backend.lifecycles;
    const line = (seq: number) => ({
      seq,
      at: new Date().toISOString(),
      event: 'NEXT',
      from: 'a',
      to: 'b',
      source: 'event' as const,
    });
    const lines = Array.from({ length: 300 }, (_, i) => line(i + 1));
    expect(await store.appendJournal(team, lines.slice(0, 120))).toBe(120);
    expect(await store.appendJournal(team, lines.slice(100, 300))).toBe(180);
    expect(await store.appendJournal(team, lines)).toBe(0);
    expect((await store.journalTail(team, 400)).map((l) => l.seq)).toEqual(lines.map((l) => l.seq));
  });

  it('a message on an inbox subject that is not a valid signal is reported, quarantined with its reason, never lost', async () => {
    const backend = await open('quarantine');
    const nc = await connect({ servers: server().url });
    const { session } = await backend.streams();
    await jetstream(nc).publish(session.names.inboxSubject('docs', 'meta'), '{"not": "a signal"}');
    await nc.close();
    const inbox = backend.signals.inbox(party('docs'));
    const { invalid } = await inbox.list();
    expect(invalid).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/^not a valid file-signal-v1 signal/) }),
    ]);
    const moved = await inbox.quarantine(invalid[0]!);
    expect(moved.path).toContain(session.names.quarantineStream);
    expect((await inbox.list()).invalid).toEqual([]);
    const kept = await session.jsm.direct.getMessage(session.names.quarantineStream, {
      last_by_subj: session.names.quarantineSubject('docs'),
    });
    expect(kept!.string()).toBe('{"not": "a signal"}');
    expect(kept!.header.get('Fed-Quarantine-Reason')).toBe(invalid[0]!.reason);
  });

  it('watch yields each new signal once, woken by the publish; the backlog option replays what was there', async () => {
    const backend = await open('watch');
    const route = { from: party('meta'), to: party('docs') };
    const old = message({ subject: 'old' });
    await backend.signals.send(old, route);
    const abort = new AbortController();
    const seen: string[] = [];
    const watch = backend.signals
      .inbox(party('docs'))
      .watch({ signal: abort.signal, rescanMs: 60_000, backlog: 'unacknowledged' });
    const reading = (async () => {
      for await (const entry of watch) {
        seen.push(entry.message.subject);
        if (seen.length === 3) abort.abort();
      }
    })();
    await expect.poll(() => seen).toEqual(['old']);
    await backend.signals.send(message({ subject: 'one' }), route);
    await backend.signals.send(message({ subject: 'two' }), route);
    await reading;
    expect(seen).toEqual(['old', 'one', 'two']);
    expect(watch.closed).toBe(true);
  });

  it('watch without backlog: a signal sent right after watch() returned is new, one stored before it is not', async () => {
    const backend = await open('watch-start');
    const route = { from: party('meta'), to: party('docs') };
    await backend.signals.send(message({ subject: 'before' }), route);
    const abort = new AbortController();
    const watch = backend.signals.inbox(party('docs')).watch({ signal: abort.signal, rescanMs: 50 });
    // Sent before the watch's first (asynchronous) read can have happened.
    const sending = backend.signals.send(message({ subject: 'after' }), route);
    const seen: string[] = [];
    for await (const entry of watch) {
      seen.push(entry.message.subject);
      abort.abort();
    }
    await sending;
    expect(seen).toEqual(['after']);
  });

  it('census counts inbox and outbox signals and acknowledgments from metadata', async () => {
    const backend = await open('census');
    for (const to of ['docs', 'docs', 'ops'])
      await backend.signals.send(message({ to }), { from: party('meta'), to: party(to) });
    const inbox = backend.signals.inbox(party('docs'));
    await inbox.acknowledge([(await inbox.pending()).signals[0]!]);
    const census = await backend.signals.census([party('docs'), party('ops'), party('meta')]);
    expect(census.get('docs')).toEqual({
      inbox: { total: 2, unacknowledged: 1 },
      outbox: { total: 0, unacknowledged: 0 },
    });
    expect(census.get('ops')).toEqual({
      inbox: { total: 1, unacknowledged: 1 },
      outbox: { total: 0, unacknowledged: 0 },
    });
    expect(census.get('meta')).toEqual({
      inbox: { total: 0, unacknowledged: 0 },
      outbox: { total: 3, unacknowledged: 2 },
    });
  });

  it('registry: create once, compare-and-swap on lockVersion, a stale writer gets a conflict and nothing changes', async () => {
    const backend = await open('registry');
    const initial: Registry = { lastUpdated: new Date().toISOString(), lockVersion: 0, teams: [] };
    expect(await backend.registry.create(initial)).toBe(true);
    expect(await backend.registry.create(initial)).toBe(false);
    await expect((await open('missing')).registry.read()).rejects.toMatchObject({ code: 'NOT_A_FEDERATION' });

    const other = await open('registry');
    const read = await backend.registry.read();
    const stale = await other.registry.read();
    const written = await backend.registry.commit(read.lockVersion, { ...read, teams: [entry('docs')] });
    expect(written.lockVersion).toBe(1);
    await expect(other.registry.commit(stale.lockVersion, { ...stale, teams: [entry('ops')] })).rejects.toBeInstanceOf(
      RegistryConflictError,
    );
    expect((await other.registry.read()).teams.map((t) => t.domainId)).toEqual(['docs']);
  });

  it('lifecycle: the envelope is compare-and-swapped on its revision; the journal appends by seq idempotently and its tail reads back', async () => {
    const backend = await open('lifecycle');
    const team = entry('docs');
    const store = backend.lifecycles;
    expect(await store.read(team)).toBeUndefined();
    const v1 = await store.exclusive(team, (section) => store.write(team, envelope(1), null, section));
    await expect(
      store.exclusive(team, (section) => store.write(team, envelope(1), null, section)),
    ).rejects.toBeInstanceOf(LifecycleConflictError);
    const v2 = await store.exclusive(team, (section) => store.write(team, envelope(2), v1, section));
    await expect(
      store.exclusive(team, (section) => store.write(team, envelope(3), v1, section)),
    ).rejects.toBeInstanceOf(LifecycleConflictError);
    expect(await store.read(team)).toEqual({ envelope: expect.objectContaining({ seq: 2 }), version: v2 });

    const line = (seq: number) => ({
      seq,
      at: new Date().toISOString(),
      event: 'NEXT',
      from: 'a',
      to: 'b',
      source: 'event' as const,
    });
    expect(await store.appendJournal(team, [line(1), line(2)])).toBe(2);
    expect(await store.appendJournal(team, [line(2), line(3)])).toBe(1);
    expect((await store.journalTail(team, 2)).map((l) => l.seq)).toEqual([2, 3]);
    expect((await store.journalTail(team, 10)).map((l) => l.seq)).toEqual([1, 2, 3]);
    expect(await store.journalTail(entry('ops'), 5)).toEqual([]);
  });

  it('lifecycle: one writer at a time per team; a lost lease refuses the write', async () => {
    const backend = await open('lease');
    const team = entry('docs');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        backend.lifecycles.exclusive(team, async () => {
          order.push(`${name} in`);
          await new Promise((r) => setTimeout(r, 30));
          order.push(`${name} out`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).toBe(order[i]!.replace('in', 'out'));

    // Someone takes the lease away (an operator, or a takeover after a long stall): the holder must not write.
    await expect(
      backend.lifecycles.exclusive(team, async (section) => {
        const { lifecycle: kv } = await backend.streams();
        await kv.put(
          `lock.${team.domainId}`,
          JSON.stringify({
            pid: 1,
            host: 'elsewhere',
            token: 't',
            acquiredAt: new Date().toISOString(),
            heartbeatAt: new Date().toISOString(),
          }),
        );
        await expect
          .poll(
            () => {
              try {
                section.assertHeld();
                return 'held';
              } catch {
                return 'lost';
              }
            },
            { timeout: 15_000 },
          )
          .toBe('lost');
        return backend.lifecycles.write(team, envelope(1), null, section);
      }),
    ).rejects.toMatchObject({ code: 'LOCK_LOST' });
  });
});
