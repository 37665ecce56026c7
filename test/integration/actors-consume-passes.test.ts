import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acknowledgeSignal,
  type Federation,
  type LifecycleEnvelope,
  type LifecycleStore,
  listSignals,
  openFederation,
  type PendingBatchOptions,
  type ReadBoxOptions,
  type RegistryEntry,
  type SignalInbox,
} from 'fed';
import {
  type ConsumerOptions,
  readEnvelope,
  TeamInboxConsumer,
  workspacePaths,
  writeAck,
  writeEnvelope,
} from 'fed/testing';
import { readWholeJournal } from '../helpers/lifecycle-checks.js';
import { docsFederation, sendDirective } from '../helpers/docs-federation.js';

/**
 * The bookkeeping of one pass of a consume over the inbox — whether it applied, held signals back,
 * released held ones, read the last batch, may adopt the ack rule, still owes effects — decides whether
 * the consume reads the inbox once more, writes, or ends. Its only sign is a pass more or less, or a write
 * more or less, so these tests count them on the real files: each read of the inbox (a pass), each
 * envelope write and each time the team's section is taken, through the federation's own ports. A signal
 * that arrives during a pass is sent once the pass's read is over, through the same seam.
 */

interface Seen {
  /** The reads of the inbox, one per pass, and whether each re-checked every file. */
  reads: { how: 'streamed' | 'listed'; verify: boolean }[];
  /** Envelope writes. */
  writes: number;
  /** Times the team's section was taken: an apply, a compaction, a settle. */
  sections: number;
}

/**
 * `fed` with its team inbox and lifecycle store counted in `seen`; `afterRead(n)` runs once the n-th read
 * of the inbox (from 1) has been taken in whole, before the consume goes on.
 */
function observed(fed: Federation, afterRead: (read: number) => Promise<void> | void = () => {}) {
  const seen: Seen = { reads: [], writes: 0, sections: 0 };
  const { signals, lifecycles } = fed.backend;
  async function* thenAfter<T>(source: AsyncIterable<T>, read: number): AsyncIterable<T> {
    yield* source;
    await afterRead(read);
  }
  const inbox: typeof signals.inbox = (...args) =>
    new Proxy(signals.inbox(...args), {
      get(target, key, receiver) {
        if (key === 'pendingBatches')
          return ((options: PendingBatchOptions = {}) => {
            seen.reads.push({ how: 'streamed', verify: options.verify ?? false });
            return thenAfter(target.pendingBatches(options), seen.reads.length);
          }) satisfies SignalInbox['pendingBatches'];
        if (key === 'list')
          return (async (options: ReadBoxOptions = {}) => {
            seen.reads.push({ how: 'listed', verify: options.verify ?? false });
            const read = await target.list(options);
            await afterRead(seen.reads.length);
            return read;
          }) satisfies SignalInbox['list'];
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  const counted = new Proxy(lifecycles, {
    get(target, key, receiver) {
      if (key === 'write')
        return ((...args) => {
          seen.writes++;
          return target.write(...args);
        }) satisfies LifecycleStore['write'];
      if (key === 'exclusive')
        return ((...args) => {
          seen.sections++;
          return target.exclusive(...args);
        }) satisfies LifecycleStore['exclusive'];
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const transport = new Proxy(signals, {
    get: (target, key, receiver) => (key === 'inbox' ? inbox : (Reflect.get(target, key, receiver) as unknown)),
  });
  const backend = { ...fed.backend, signals: transport, lifecycles: counted };
  return { fed: { ...fed, backend } as Federation, seen };
}

const consumer = (fed: Federation, team: RegistryEntry, options: ConsumerOptions = {}) =>
  new TeamInboxConsumer(fed, team, { durable: false, settleMs: 0, ...options });
const applied = (steps: { outcome: string; signalId?: string }[]) =>
  steps.filter((s) => s.outcome === 'applied').map((s) => s.signalId);
const events = (team: RegistryEntry) => readWholeJournal(team.location).map((l) => l.event);
const reset = (seen: Seen) => Object.assign(seen, { reads: [], writes: 0, sections: 0 });
const streamed = (count: number) => Array.from({ length: count }, () => ({ how: 'streamed', verify: false }));

describe('a consume reads the inbox again only while a pass did something', () => {
  it('applies, reads once more to find nothing, and ends; an idle consume reads once and writes nothing', async () => {
    const { root, team } = await docsFederation();
    const mission = await sendDirective(root, 'the mission');
    const { fed, seen } = observed(openFederation(root));
    const actor = consumer(fed, team());

    expect(applied((await actor.consume()).steps)).toEqual([mission.message.id]);
    // One pass applies (one section, one write), the next finds the inbox done: it settles nothing, since
    // the apply's effects were done, and compacts nothing, since its own acks were noted as they were made.
    expect(seen).toEqual({ reads: streamed(2), writes: 1, sections: 1 });

    reset(seen);
    expect((await actor.consume()).steps).toEqual([]);
    expect(seen).toEqual({ reads: streamed(1), writes: 0, sections: 0 });
  });

  it("a consumer's first consume drops the ids acknowledged before it, or settles what is owed; its next writes nothing", async () => {
    const { root, team } = await docsFederation();
    await sendDirective(root, 'the mission');
    await consumer(openFederation(root), team()).consume();
    const { fed, seen } = observed(openFederation(root));

    // The mission's id is still in the dedupe record, its ack durable: the compaction drops it (its
    // apply settles what is owed too).
    const next = consumer(fed, team());
    await next.consume();
    expect(readEnvelope(team().location)!.processed).toEqual([]);
    expect(seen).toEqual({ reads: streamed(1), writes: 1, sections: 1 });
    reset(seen);
    await next.consume();
    expect(seen).toEqual({ reads: streamed(1), writes: 0, sections: 0 });

    // Nothing to compact: a new consumer settles (a section, no write), once.
    reset(seen);
    const third = consumer(fed, team());
    await third.consume();
    expect(seen).toEqual({ reads: streamed(1), writes: 0, sections: 1 });
    reset(seen);
    await third.consume();
    expect(seen).toEqual({ reads: streamed(1), writes: 0, sections: 0 });
  });

  it('applies a signal that arrived during a pass in the same consume', async () => {
    const { root, team } = await docsFederation();
    const mission = await sendDirective(root, 'the mission');
    let later: Awaited<ReturnType<typeof sendDirective>> | undefined;
    const { fed, seen } = observed(openFederation(root), async (read) => {
      if (read === 1) later = await sendDirective(root, 'more work');
    });

    const result = await consumer(fed, team()).consume();
    expect(applied(result.steps)).toEqual([mission.message.id, later!.message.id]);
    expect(seen).toEqual({ reads: streamed(3), writes: 2, sections: 2 });
  });

  it('with consumesOnArrival, ends after the pass that applied: the arrival during it brings the next consume', async () => {
    const { root, team } = await docsFederation();
    const mission = await sendDirective(root, 'the mission');
    let later: Awaited<ReturnType<typeof sendDirective>> | undefined;
    const { fed, seen } = observed(openFederation(root), async () => {
      later ??= await sendDirective(root, 'more work');
    });
    const actor = consumer(fed, team(), { consumesOnArrival: true });

    expect(applied((await actor.consume()).steps)).toEqual([mission.message.id]);
    expect(seen).toEqual({ reads: streamed(1), writes: 1, sections: 1 });
    reset(seen);
    expect(applied((await actor.consume()).steps)).toEqual([later!.message.id]);
    expect(seen).toEqual({ reads: streamed(1), writes: 1, sections: 1 });
  });
});

describe('a pass that held signals back', () => {
  it('ends the consume once a pass only held them, and reports them deferred — with consumesOnArrival too', async () => {
    const { root, team } = await docsFederation();
    await sendDirective(root, 'pause');
    const waiting = await sendDirective(root, 'the mission');
    const { fed, seen } = observed(openFederation(root));

    const result = await consumer(fed, team(), { consumesOnArrival: true }).consume();
    // The first pass applied the pause and held the mission: a pass more finds only the held one, and ends.
    expect(result.steps.map((s) => s.outcome)).toEqual(['applied']);
    expect(result).toMatchObject({ state: 'paused', deferred: 1 });
    expect(seen).toEqual({ reads: streamed(2), writes: 1, sections: 2 });
    expect(readEnvelope(team().location)!.held ?? []).toEqual([]);

    reset(seen);
    expect(await consumer(fed, team()).consume()).toMatchObject({ steps: [], deferred: 1 });
    // A new consumer drops the pause's id, acknowledged (a section, a write), and holds the mission again
    // (a section, nothing written).
    expect(seen).toEqual({ reads: streamed(1), writes: 1, sections: 2 });
    expect(events(team())).toEqual(['PAUSE']);
    void waiting;
  });

  it('takes the signals held while paused out of the dedupe record in the consume that released them', async () => {
    const { root, team } = await docsFederation();
    await sendDirective(root, 'pause');
    await consumer(openFederation(root), team()).consume();
    // Acknowledged while paused (fed signal ack): kept in the envelope's held list.
    const held = await sendDirective(root, 'document the API');
    await acknowledgeSignal(openFederation(root), 'docs', held.message.id, { durable: false });
    const watching = observed(openFederation(root));
    const still = consumer(watching.fed, team());
    await still.consume();
    // Nothing to release while paused: a consume more takes not even the section.
    reset(watching.seen);
    await still.consume();
    expect(watching.seen).toEqual({ reads: streamed(1), writes: 0, sections: 0 });
    const workspace = team().location;
    const paused = readEnvelope(workspace)!;
    expect(paused.held?.map((h) => h.id)).toEqual([held.message.id]);
    // Left the pause by a write of its own (an earlier release's resume, a hand edit): the held list kept.
    await writeEnvelope(
      workspace,
      { ...paused, snapshot: { ...paused.snapshot, value: 'preparing' } },
      { durable: false },
    );
    const { fed, seen } = observed(openFederation(root));

    const result = await consumer(fed, team(), { consumesOnArrival: true }).consume();
    expect(applied(result.steps)).toEqual([held.message.id]);
    // The compaction applied it (a write); the next pass finds its id acknowledged and drops it (a write).
    expect(readEnvelope(workspace)).toMatchObject({ processed: [], seq: paused.seq + 1 });
    expect(readEnvelope(workspace)!.held).toBeUndefined();
    expect(seen.reads).toEqual(streamed(2));
    expect(seen.writes).toBe(2);
  });
});

describe('an effect still owed', () => {
  it('is retried by the same consume once the pass that failed it is over — with consumesOnArrival too', async () => {
    const { root, team } = await docsFederation();
    const pause = await sendDirective(root, 'pause');
    // meta's inbox cannot be written (a file where the folder should be: ENOTDIR, like a read-only disk).
    const metaInbox = workspacePaths(root).inbox;
    renameSync(metaInbox, `${metaInbox}.away`);
    writeFileSync(metaInbox, 'not a folder');
    const repair = () => {
      rmSync(metaInbox);
      renameSync(`${metaInbox}.away`, metaInbox);
    };
    const { fed, seen } = observed(openFederation(root));

    // The report of the pause fails; meta can receive again as soon as the pass's steps are told.
    const result = await consumer(fed, team(), { consumesOnArrival: true, onSteps: repair }).consume();
    expect(result.warnings).toEqual([
      expect.stringMatching(/reporting "preparing → paused" to meta for team "docs" failed and will be retried/),
    ]);
    const reports = readdirSync(metaInbox).filter((f) => f.endsWith('.json'));
    expect(reports.map((f) => (JSON.parse(readFileSync(join(metaInbox, f), 'utf8')) as { body: string }).body)).toEqual(
      [expect.stringContaining(`moved from preparing to paused on PAUSE (signal ${pause.message.id})`)],
    );
    // The pass that applied, then one that found nothing and settled (a section, no write).
    expect(seen).toEqual({ reads: streamed(2), writes: 1, sections: 2 });
  });
});

describe('an envelope of an earlier release (no dedupe field) adopts dedupe until-ack', () => {
  /** The envelope as the earlier release wrote it: no `dedupe`, every id it ever applied. */
  async function earlierRelease() {
    const { root, team } = await docsFederation();
    const first = await sendDirective(root, 'first');
    await consumer(openFederation(root), team()).consume();
    const file = workspacePaths(team().location).envelope;
    const { dedupe: _dedupe, ...earlier } = JSON.parse(readFileSync(file, 'utf8')) as LifecycleEnvelope;
    writeFileSync(file, JSON.stringify({ ...earlier, processed: [first.message.id] }));
    return { root, team, first };
  }
  /** The agent acknowledged the signal before the actor applied it, as the earlier release let it. */
  async function acknowledgedEarly(root: string, id: string) {
    const [entry] = (await listSignals(openFederation(root), { team: 'docs' })).signals.filter(
      (s) => s.message.id === id,
    );
    writeAck(entry!, { durable: false });
  }

  it('only after its last batch: a signal acknowledged early in a later batch is still applied', async () => {
    const { root, team } = await earlierRelease();
    await sendDirective(root, 'a question of scope');
    await sendDirective(root, 'another one');
    const late = await sendDirective(root, 'reply when done');
    await acknowledgedEarly(root, late.message.id);
    const { fed, seen } = observed(openFederation(root));

    const result = await consumer(fed, team(), { batchSize: 2 }).consume();
    expect(applied(result.steps)).toHaveLength(3);
    expect(applied(result.steps)).toContain(late.message.id);
    expect(readEnvelope(team().location)!.dedupe).toBe('until-ack');
    // Listed whole until adopted; streamed after.
    expect(seen.reads[0]).toEqual({ how: 'listed', verify: false });
    expect(seen.reads.slice(1).every((r) => r.how === 'streamed')).toBe(true);
  });

  it('not by a pass that held a signal back: one acknowledged early while paused is applied after the resume', async () => {
    const { root, team } = await earlierRelease();
    await sendDirective(root, 'pause');
    const early = await sendDirective(root, 'the real mission');
    await sendDirective(root, 'resume');
    await acknowledgedEarly(root, early.message.id);
    const { fed, seen } = observed(openFederation(root));

    // Listed whole (the first directive, applied by the earlier release, too), in batches [first, pause,
    // the mission] (held) and [resume]: a last batch that holds nothing back, in a pass that did.
    const result = await consumer(fed, team(), { batchSize: 3 }).consume();
    expect(applied(result.steps)).toContain(early.message.id);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'DIRECTIVE_RECEIVED']);
    expect(readEnvelope(team().location)!.dedupe).toBe('until-ack');
    expect(seen).toEqual({ reads: Array(3).fill({ how: 'listed', verify: false }), writes: 4, sections: 5 });
  });

  it('when idle, with no acknowledged id to drop: the next consume adopts it in a write of its own', async () => {
    const { root, team, first } = await earlierRelease();
    // Saved as processed, its ack never written (a crash came between): acknowledged now, not dropped.
    rmSync(`${first.inboxPath}.ack`);
    const { fed, seen } = observed(openFederation(root));

    expect(await consumer(fed, team()).consume()).toMatchObject({ steps: [], acknowledged: 1 });
    expect(readEnvelope(team().location)).toMatchObject({ dedupe: 'until-ack', processed: [] });
    expect(seen).toEqual({ reads: [{ how: 'listed', verify: false }], writes: 1, sections: 1 });
  });
});

describe('the reads of a pass', () => {
  it('stream an envelope with dedupe until-ack, and re-check every file only right after a quarantine', async () => {
    const { root, team } = await docsFederation();
    const inbox = workspacePaths(team().location).inbox;
    const bad = join(inbox, '2026-01-01T000000Z-directive-garbage.json');
    writeFileSync(bad, 'not json');
    utimesSync(bad, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    let mission: Awaited<ReturnType<typeof sendDirective>> | undefined;
    const { fed, seen } = observed(openFederation(root), async (read) => {
      if (read === 1) mission = await sendDirective(root, 'the mission');
    });

    const result = await consumer(fed, team()).consume();
    expect(result.quarantined.map((q) => q.file)).toEqual(['2026-01-01T000000Z-directive-garbage.json']);
    // The pass after the quarantine re-checks (and applies what arrived meanwhile); the one after trusts the listing again.
    expect(applied(result.steps)).toEqual([mission!.message.id]);
    expect(seen.reads).toEqual([
      { how: 'streamed', verify: false },
      { how: 'streamed', verify: true },
      { how: 'streamed', verify: false },
    ]);
  });
});

describe('a consume stopped by its signal', () => {
  /** A mission and three directives, applied and acknowledged; the last one's ack lost (a crash came before it). */
  async function appliedOnce() {
    const { root, team } = await docsFederation();
    const sent = [];
    for (const subject of ['the mission', 'one', 'two', 'three']) sent.push(await sendDirective(root, subject));
    await consumer(openFederation(root), team()).consume();
    rmSync(`${sent[3]!.inboxPath}.ack`);
    return { root, team, sent };
  }

  it('writes nothing when stopped before its first batch: a pass cut short does not compact the dedupe record', async () => {
    const { root, team, sent } = await appliedOnce();
    const before = readFileSync(workspacePaths(team().location).envelope, 'utf8');
    let drained = false;
    const { fed, seen } = observed(openFederation(root), () => {
      drained = true;
    });
    const stop = new AbortController();
    stop.abort();

    expect(await consumer(fed, team(), { signal: stop.signal }).consume()).toMatchObject({
      steps: [],
      acknowledged: 0,
    });
    // The read is left at its first batch, not drained to its end.
    expect(drained).toBe(false);
    expect(seen).toEqual({ reads: streamed(1), writes: 0, sections: 0 });
    expect(readFileSync(workspacePaths(team().location).envelope, 'utf8')).toBe(before);
    // Its id still in the record, the signal whose ack was lost is acknowledged, not applied again.
    expect(await consumer(openFederation(root), team()).consume()).toMatchObject({ steps: [], acknowledged: 1 });
    expect(readWholeJournal(team().location).map((l) => l.signalId)).toEqual(sent.map((s) => s.message.id));
  });

  it('ends between two batches when stopped during one, and the next consume applies the rest, once each', async () => {
    const { root, team } = await docsFederation();
    const sent = [];
    for (const subject of ['the mission', 'one', 'two', 'three']) sent.push(await sendDirective(root, subject));
    const stop = new AbortController();
    const actor = consumer(openFederation(root), team(), { batchSize: 1, signal: stop.signal });

    // The file adapter's work is synchronous: the abort is heard only at the turn of the event loop a
    // consume takes between two batches.
    const consuming = actor.consume();
    setImmediate(() => stop.abort());
    const stopped = applied((await consuming).steps);
    expect(stopped.length).toBeLessThan(sent.length);
    const rest = applied((await consumer(openFederation(root), team()).consume()).steps);
    expect([...stopped, ...rest]).toEqual(sent.map((s) => s.message.id));
  });
});

describe('an entry fed never moves (a directory or FIFO named like a signal)', () => {
  it('does not keep acknowledged ids in the dedupe record, as a broken ack would', async () => {
    const { root, team } = await docsFederation();
    mkdirSync(join(workspacePaths(team().location).inbox, '2026-01-01T000000Z-directive-dir.json'));
    await sendDirective(root, 'the mission');
    await consumer(openFederation(root), team()).consume();
    expect(readEnvelope(team().location)!.processed).toHaveLength(1);

    const result = await consumer(openFederation(root), team()).consume();
    expect(result.warnings).toEqual([expect.stringMatching(/skipped .*directive-dir\.json: a directory/)]);
    expect(readEnvelope(team().location)!.processed).toEqual([]);
  });
});
