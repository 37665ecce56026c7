import type { TestPath } from '@xstate/graph';
import {
  createActor,
  initialTransition,
  transition,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  type StateValue,
} from 'xstate';
import { expect } from 'vitest';

/**
 * Plays model paths against a system under test (SUT). The SUT is an interface so the same paths drive a
 * plain in-memory actor here and the real file-backed actor system later (signals and `fed event` in a
 * temp federation, state read back from disk).
 */
export interface ObservedState {
  value: StateValue;
  /** `active`, or `done` once a final state is reached. */
  status: string;
  context: unknown;
}

export interface SystemUnderTest<TEvent extends EventObject = EventObject> {
  /** Begin at the machine's initial state with nothing left over from an earlier path. */
  start(): void | Promise<void>;
  send(event: TEvent): void | Promise<void>;
  /** The state as the system holds it now (for a persistent system: as read back from storage). */
  observe(): ObservedState | Promise<ObservedState>;
  stop?(): void | Promise<void>;
}

/** The model side of a path: the machine, its event types, and how its states map to graph vertices. */
export interface PathModel {
  machine: AnyStateMachine;
  eventTypes: readonly string[];
  /** The serializer the paths were generated with. */
  vertexOf: (snapshot: AnyMachineSnapshot) => string;
  /** The machine input the SUT starts with (e.g. `{at}` of the lifecycle start), so the replay matches it. */
  input?: unknown;
}

export interface RunPathOptions {
  /** What the SUT must hold, from the model's snapshot; default: value, status and the whole context. */
  expected?: (snapshot: AnyMachineSnapshot) => ObservedState;
  /** Extra checks after each step (invariants), given what the SUT holds and the event that led there. */
  afterStep?: (observed: ObservedState, event: EventObject) => void;
}

export function observedState(snapshot: AnyMachineSnapshot): ObservedState {
  return { value: snapshot.value, status: snapshot.status, context: snapshot.context };
}

/**
 * Start the SUT, then for every step send its event (the first step is the model's `xstate.init`, which
 * the SUT's start stands for) and compare what the SUT holds with the model.
 *
 * A path's step snapshots are only representatives of their graph vertex (a vertex ignores timestamps and
 * counters), so the exact expected snapshot comes from replaying the same events through the machine; the
 * replay must land on the path's vertex at every step.
 */
export async function runPath(
  path: TestPath<AnyMachineSnapshot, EventObject>,
  model: PathModel,
  sut: SystemUnderTest,
  options: RunPathOptions = {},
): Promise<void> {
  const expected = options.expected ?? observedState;
  let replayed = initialTransition(model.machine, model.input)[0] as AnyMachineSnapshot;
  let lastEvent: EventObject = { type: 'xstate.init' };
  let checkedSteps = 0;
  const send = async (step: { event: EventObject }) => {
    // A path is a sequence of transitions; an event the model refuses would make the step a silent no-op.
    expect(replayed.can(step.event), `${step.event.type} is accepted in ${JSON.stringify(replayed.value)}`).toBe(true);
    replayed = transition(model.machine, replayed, step.event)[0] as AnyMachineSnapshot;
    lastEvent = step.event;
    await sut.send(step.event);
  };
  await sut.start();
  try {
    await path.test({
      events: Object.fromEntries(model.eventTypes.map((type) => [type, send])),
      states: {
        '*': async (vertex) => {
          expect(model.vertexOf(replayed), `replaying up to ${lastEvent.type} reaches the path's state`).toBe(
            model.vertexOf(vertex),
          );
          const observed = await sut.observe();
          expect(observed, `after ${lastEvent.type}`).toEqual(expected(replayed));
          options.afterStep?.(observed, lastEvent);
          checkedSteps++;
        },
      },
    });
    // Guards against a runner that silently skips steps: every step must have been checked.
    expect(checkedSteps).toBe(path.steps.length);
  } finally {
    await sut.stop?.();
  }
}

/** The reference SUT: an xstate actor of the machine, optionally restored from JSON after every event. */
export function actorSystemUnderTest(
  machine: AnyStateMachine,
  options: { restoreEachStep?: boolean; input?: unknown } = {},
): SystemUnderTest {
  let actor: AnyActorRef | undefined;
  const current = () => {
    if (!actor) throw new Error('the system under test was not started');
    return actor;
  };
  return {
    start() {
      actor = createActor(machine, { input: options.input }).start();
    },
    send(event) {
      current().send(event);
      if (options.restoreEachStep) {
        // What a persistent system does between events: persist as JSON text, restore into a new actor.
        const persisted: unknown = JSON.parse(JSON.stringify(current().getPersistedSnapshot()));
        current().stop();
        actor = createActor(machine, { snapshot: persisted as AnyMachineSnapshot }).start();
      }
    },
    observe() {
      return observedState(current().getSnapshot() as AnyMachineSnapshot);
    },
    stop() {
      current().stop();
      actor = undefined;
    },
  };
}
