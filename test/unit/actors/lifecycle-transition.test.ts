import { createActor, transition, type AnyActorScope, type AnyStateMachine, type InspectionEvent } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import type { RegistryEntry } from 'fed';
import {
  archetypes,
  DEDUPE_UNTIL_ACK,
  deliverableEntry,
  type LifecycleChange,
  LifecycleWalk,
  SIGNAL_PROTOCOL,
} from 'fed/testing';
import {
  ApplyInspection,
  initialPersistedSnapshot,
  takeTransition,
  TransitionScope,
} from '../../../src/engine/actors/lifecycle-transition.js';

/** Lifecycles move by xstate's pure transition(); what an actor did besides is done by lifecycle-transition.ts. */
const team = { domainId: 'docs' } as RegistryEntry;
const at = '2025-01-01T10:00:00.000Z';
const mission = {
  type: 'MISSION_ASSIGNED',
  signalId: 'sig-1',
  subject: 'document the API',
  body: 'Write docs/api.md',
  at: '2025-01-01T10:01:00.000Z',
};

describe('a lifecycle moved without an actor', () => {
  it.each(archetypes.map((a) => [a.id, a.lifecycle] as const))(
    '%s: starts from the snapshot an actor started at the same time would persist',
    (_id, entry) => {
      expect(initialPersistedSnapshot(entry, at)).toEqual(
        createActor(entry.machine, { input: { at } }).getPersistedSnapshot(),
      );
    },
  );

  it.each(archetypes.map((a) => [a.id, a.lifecycle] as const))(
    '%s: started again and again on its one scope, each start is the one an actor of its own would persist',
    (_id, entry) => {
      for (const each of ['2026-03-04T05:06:07.089Z', at, '2024-12-31T23:59:59.999Z'])
        expect(initialPersistedSnapshot(entry, each)).toEqual(
          createActor(entry.machine, { input: { at: each } }).getPersistedSnapshot(),
        );
    },
  );

  it('a thousand lifecycles started construct one actor, not one each (xstate initialTransition constructs one per call)', () => {
    const entry = { ...deliverableEntry, machine: deliverableEntry.machine.provide({}) };
    const computed = vi.spyOn(entry.machine, 'getInitialSnapshot');
    for (let i = 0; i < 1000; i++) initialPersistedSnapshot(entry, at);
    // The scope's actor computes it once when constructed, then once for each start.
    expect(computed).toHaveBeenCalledTimes(1001);
  });

  it('reaches the snapshot an actor reaches, and inspection sees the team, the event and the snapshot', () => {
    const start = createActor(deliverableEntry.machine, { input: { at } }).getSnapshot();
    const actor = createActor(deliverableEntry.machine, { snapshot: start }).start();
    actor.send(mission as never);
    const seen: InspectionEvent[] = [];
    const next = takeTransition(
      deliverableEntry,
      team,
      start,
      mission,
      new ApplyInspection((event) => seen.push(event), deliverableEntry, team, start),
    );
    expect(deliverableEntry.machine.getPersistedSnapshot(next)).toEqual(actor.getPersistedSnapshot());
    expect(seen.map((event) => [event.type, (event.actorRef as { id?: string }).id])).toEqual([
      ['@xstate.actor', 'docs'],
      ['@xstate.event', 'docs'],
      ['@xstate.snapshot', 'docs'],
    ]);
    expect(seen[0]!.actorRef.getSnapshot()).toBe(next);
  });

  it('executes an action that is not an assign, as an actor would; one that throws fails the apply with LIFECYCLE_ERROR', () => {
    const executed: string[] = [];
    const told = {
      ...deliverableEntry,
      machine: deliverableEntry.machine.provide({
        actions: { recordMission: ({ event }) => void executed.push(event.type) },
      }) as typeof deliverableEntry.machine,
    };
    // A snapshot carries its machine's implementations: it is restored by the entry's machine, as loadTeamLifecycle does.
    const startOf = (entry: typeof deliverableEntry) =>
      entry.machine.resolveState({
        value: 'preparing',
        context: createActor(entry.machine, { input: { at } }).getSnapshot().context,
      });
    const start = startOf(told);
    const seen: string[] = [];
    takeTransition(
      told,
      team,
      start,
      mission,
      new ApplyInspection((event) => seen.push(event.type), told, team, start),
    );
    expect(executed).toEqual(['MISSION_ASSIGNED']);
    expect(seen).toEqual(['@xstate.actor', '@xstate.event', '@xstate.action', '@xstate.snapshot']);

    const broken = {
      ...deliverableEntry,
      machine: deliverableEntry.machine.provide({
        actions: {
          recordMission: () => {
            throw new Error('action bug');
          },
        },
      }) as typeof deliverableEntry.machine,
    };
    expect(() => takeTransition(broken, team, startOf(broken), mission)).toThrow(
      expect.objectContaining({
        code: 'LIFECYCLE_ERROR',
        message: expect.stringContaining('(action bug); nothing was saved'),
      }),
    );
  });

  it('a walk moves through all its inputs on one actor scope: a batch of 256 questions constructs one actor, not one each', async () => {
    const machine = deliverableEntry.machine;
    const start = createActor(machine, { input: { at } }).getSnapshot();
    const questions: LifecycleChange[] = Array.from({ length: 256 }, (_, i) => ({
      source: 'signal',
      signal: {
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        timestamp: at,
        from: 'meta',
        to: 'docs',
        type: 'question',
        subject: `question ${i}`,
        body: '',
        protocol: SIGNAL_PROTOCOL,
      },
    }));
    const walk = new LifecycleWalk({
      team,
      lifecycle: {
        team,
        entry: deliverableEntry,
        snapshot: start,
        envelope: {
          machineId: deliverableEntry.id,
          machineVersion: deliverableEntry.version,
          snapshot: machine.getPersistedSnapshot(start) as Record<string, unknown>,
          seq: 0,
          processed: [],
          dedupe: DEDUPE_UNTIL_ACK,
          journalTail: [],
          pendingReports: [],
          savedAt: at,
        },
        stored: false,
        version: null,
      },
      backend: undefined as never,
      now: () => at,
      warnings: [],
    });
    // An actor computes its machine's initial snapshot when it is constructed: xstate's transition() builds
    // one per call, which was two thirds of a signal's transition.
    const constructed = vi.spyOn(machine, 'getInitialSnapshot');
    try {
      await walk.run(questions);
      expect(walk.steps.filter((step) => step.outcome === 'applied')).toHaveLength(256);
      expect(constructed).toHaveBeenCalledTimes(1);
    } finally {
      constructed.mockRestore();
    }
  });
});

/** The scope `machine.transition` is given while `run` runs. */
function scopeGiven(machine: AnyStateMachine, run: () => void): AnyActorScope {
  const spy = vi.spyOn(machine, 'transition');
  try {
    run();
    return spy.mock.calls[0]![2] as AnyActorScope;
  } finally {
    spy.mockRestore();
  }
}

/** Each member of a scope and what kind of value it is. */
function shapeOf(scope: AnyActorScope): Record<string, string> {
  return Object.fromEntries(Object.entries(scope).map(([key, value]) => [key, typeof value]));
}

/**
 * TransitionScope builds the actor scope that xstate's pure `transition(machine, snapshot, event)` builds
 * for each call (xstate's internal createInertActorScope), and hands it to `machine.transition` itself.
 * What it copies is xstate's internal: these tests pin it, so an xstate release that changes the scope —
 * a member added or dropped, actions no longer handed to `actionExecutor` — fails here, not in a
 * lifecycle at run time.
 */
describe("TransitionScope, against xstate's own scope for transition()", () => {
  it('has the members, and the kinds of members, of the scope xstate builds', () => {
    const { machine } = deliverableEntry;
    const start = createActor(machine, { input: { at } }).getSnapshot();
    const xstates = scopeGiven(machine, () => transition(machine, start, mission as never));
    const ours = scopeGiven(machine, () => new TransitionScope(machine).transition(start, mission));
    expect(shapeOf(ours)).toEqual(shapeOf(xstates));
    // `self` is an actor of the machine that is never started; the system is an actor system.
    expect(ours.self.getSnapshot().status).toBe('active');
    expect(typeof ours.system.get).toBe('function');
  });

  it('is handed the actions through actionExecutor, as xstate hands them to transition() to return', () => {
    const executed: string[] = [];
    const machine = deliverableEntry.machine.provide({
      actions: { recordMission: ({ event }) => void executed.push(event.type) },
    });
    const start = machine.resolveState({
      value: 'preparing',
      context: createActor(machine, { input: { at } }).getSnapshot().context,
    });
    const [xstateNext, xstateActions] = transition(machine, start, mission as never);
    const [next, actions] = new TransitionScope(machine).transition(start, mission);
    expect(executed).toEqual([]);
    expect(actions.map((action) => action.type)).toEqual(xstateActions.map((action) => action.type));
    expect(actions.map((action) => action.type)).toContain('recordMission');
    expect(machine.getPersistedSnapshot(next)).toEqual(machine.getPersistedSnapshot(xstateNext));
  });
});
