import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import {
  DELIVERABLE_MACHINE_ID,
  DELIVERABLE_MACHINE_VERSION,
  NOTHING_FOUND_REASON,
  acceptedEventTypes,
  checkEvent,
  deliverableEventSchema,
  deliverableMachine,
  type DeliverableEvent,
} from 'fed';

/** The deliverable lifecycle as docs/lifecycles.md documents it (docs/design/spec.md §3.1 plus our RESUME decision). */
const T0 = '2025-03-01T09:00:00.000Z';
const mission: DeliverableEvent = {
  type: 'MISSION_ASSIGNED',
  signalId: 'sig-1',
  subject: 'architecture overview',
  body: 'Describe the layers',
};

function start(...events: DeliverableEvent[]) {
  const actor = createActor(deliverableMachine, { input: { at: T0 } }).start();
  for (const event of events) actor.send(event);
  return actor;
}

const toAggregating: DeliverableEvent[] = [
  mission,
  { type: 'PLAN_READY', sources: ['src/'] },
  { type: 'SCAN_COMPLETE', filesRead: 3 },
  { type: 'INSIGHTS_READY' },
];

describe('deliverable machine', () => {
  test('is identified and versioned for persisted snapshots', () => {
    expect(deliverableMachine.id).toBe(DELIVERABLE_MACHINE_ID);
    expect(DELIVERABLE_MACHINE_ID).toBe('deliverable');
    expect(DELIVERABLE_MACHINE_VERSION).toBe(1);
  });

  test('starts preparing, with no mission, entered at the input time', () => {
    const snapshot = start().getSnapshot();
    expect(snapshot.value).toBe('preparing');
    expect(snapshot.context).toMatchObject({
      mission: null,
      pausedFrom: null,
      failure: null,
      enteredAt: { preparing: T0 },
    });
  });

  test('accepts, in each state, exactly the events docs/lifecycles.md lists', () => {
    const working = ['FAIL', 'PAUSE', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED'];
    const acceptedIn = (...events: DeliverableEvent[]) =>
      [...acceptedEventTypes(start(...events).getSnapshot())].sort();
    expect(acceptedIn()).toEqual(['MISSION_ASSIGNED', 'PLAN_READY', ...working].sort());
    expect(acceptedIn(...toAggregating.slice(0, 2))).toEqual(['SCAN_COMPLETE', ...working].sort());
    expect(acceptedIn(...toAggregating.slice(0, 3))).toEqual(['INSIGHTS_READY', ...working].sort());
    expect(acceptedIn(...toAggregating)).toEqual(['DOCUMENT_WRITTEN', ...working].sort());
    expect(acceptedIn({ type: 'PAUSE' })).toEqual(['RESUME', 'FAIL', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED'].sort());
  });

  test('a mission comes first: PLAN_READY is refused until MISSION_ASSIGNED recorded one', () => {
    const actor = start();
    const plan: DeliverableEvent = { type: 'PLAN_READY', sources: ['src/', 'docs/'] };
    expect(checkEvent(actor.getSnapshot(), plan)).toMatchObject({ accepted: false, reason: 'condition-not-met' });
    actor.send(mission);
    expect(actor.getSnapshot().value).toBe('preparing');
    expect(actor.getSnapshot().context.mission).toEqual({
      signalId: 'sig-1',
      subject: 'architecture overview',
      body: 'Describe the layers',
    });
    // Only the first directive is the mission; a second MISSION_ASSIGNED is refused, not overwriting it.
    expect(actor.getSnapshot().can({ ...mission, signalId: 'sig-2' })).toBe(false);
    actor.send(plan);
    expect(actor.getSnapshot().value).toBe('scanning');
    expect(actor.getSnapshot().context.sources).toEqual(['src/', 'docs/']);
  });

  test('runs preparing → scanning → distilling → aggregating → complete, recording each result', () => {
    const actor = start(...toAggregating, { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 1200 });
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('complete');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context).toMatchObject({
      filesRead: 3,
      insights: [],
      document: { path: 'deliverable.md', bytes: 1200 },
      failure: null,
    });
  });

  test('a scan that read no files means the information cannot be found → failed, with that reason', () => {
    const snapshot = start(
      mission,
      { type: 'PLAN_READY', sources: ['src/'] },
      { type: 'SCAN_COMPLETE', filesRead: 0 },
    ).getSnapshot();
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context.failure).toEqual({ reason: NOTHING_FOUND_REASON, state: 'scanning' });
  });

  test('an empty document does not complete the deliverable', () => {
    const actor = start(...toAggregating);
    const empty: DeliverableEvent = { type: 'DOCUMENT_WRITTEN', path: 'deliverable.md', bytes: 0 };
    expect(checkEvent(actor.getSnapshot(), empty)).toMatchObject({ accepted: false, reason: 'condition-not-met' });
    actor.send(empty);
    expect(actor.getSnapshot().value).toBe('aggregating');
  });

  test('FAIL keeps the reason and the state it failed in, paused included', () => {
    const fromScanning = start(
      mission,
      { type: 'PLAN_READY', sources: ['src/'] },
      { type: 'FAIL', reason: 'repository unreadable' },
    );
    expect(fromScanning.getSnapshot().context.failure).toEqual({ reason: 'repository unreadable', state: 'scanning' });
    const fromPaused = start({ type: 'PAUSE' }, { type: 'FAIL', reason: 'cancelled by meta' });
    expect(fromPaused.getSnapshot().value).toBe('failed');
    expect(fromPaused.getSnapshot().context).toMatchObject({
      failure: { reason: 'cancelled by meta', state: 'paused' },
      pausedFrom: null,
    });
  });

  test('RESUME returns to exactly the state the team was paused in', () => {
    const actor = start(...toAggregating.slice(0, 3), { type: 'PAUSE', at: '2025-03-01T09:30:00.000Z' });
    expect(actor.getSnapshot().value).toBe('paused');
    expect(actor.getSnapshot().context.pausedFrom).toBe('distilling');
    actor.send({ type: 'RESUME', at: '2025-03-01T10:00:00.000Z' });
    expect(actor.getSnapshot().value).toBe('distilling');
    expect(actor.getSnapshot().context.pausedFrom).toBeNull();
    expect(actor.getSnapshot().context.enteredAt).toMatchObject({
      paused: '2025-03-01T09:30:00.000Z',
      distilling: '2025-03-01T10:00:00.000Z',
    });
  });

  test('directives and questions are recorded without changing state, paused or not', () => {
    const actor = start(mission, { type: 'DIRECTIVE_RECEIVED', signalId: 'sig-2', subject: 'add a diagram', at: T0 });
    actor.send({ type: 'PAUSE' });
    actor.send({ type: 'QUESTION_RECEIVED', signalId: 'sig-3', subject: 'when?' });
    expect(actor.getSnapshot().value).toBe('paused');
    expect(actor.getSnapshot().context).toMatchObject({
      lastDirective: { signalId: 'sig-2', subject: 'add a diagram', at: T0 },
      lastQuestion: { signalId: 'sig-3', subject: 'when?' },
    });
  });

  test('an event without `at` leaves the entry time unknown instead of keeping a stale one', () => {
    const actor = start({ type: 'PAUSE', at: '2025-03-01T09:05:00.000Z' }, { type: 'RESUME' });
    expect(actor.getSnapshot().value).toBe('preparing');
    expect(actor.getSnapshot().context.enteredAt).toEqual({ paused: '2025-03-01T09:05:00.000Z' });
  });

  describe('event schema', () => {
    test('accepts every documented event', () => {
      for (const event of [
        ...toAggregating,
        { type: 'DOCUMENT_WRITTEN', path: 'd.md', bytes: 1, at: T0 },
        { type: 'RESUME' },
      ]) {
        expect(deliverableEventSchema.parse(event)).toEqual(event);
      }
    });

    test.each([
      [{ type: 'SCAN_COMPLETE', filesRead: -1 }, 'filesRead'],
      [{ type: 'SCAN_COMPLETE', filesRead: 2.5 }, 'filesRead'],
      [{ type: 'DOCUMENT_WRITTEN', path: '', bytes: 10 }, 'path'],
      [{ type: 'FAIL' }, 'reason'],
      [{ type: 'PAUSE', at: 'yesterday' }, 'at'],
      [{ type: 'PLAN_READY', sources: ['src/'], souces: [] }, 'souces'],
      [{ type: 'FINISH' }, 'type'],
    ])('rejects %j (problem at %s)', (event, field) => {
      const result = deliverableEventSchema.safeParse(event);
      expect(result.success).toBe(false);
      const paths = result.error!.issues.map((issue) =>
        [...issue.path, ...('keys' in issue ? issue.keys : [])].join('.'),
      );
      expect(paths.join(' ')).toContain(field);
    });
  });
});
