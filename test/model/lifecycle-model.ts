import { createTestModel, type TestModel, type TestPath } from '@xstate/graph';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import type { LifecycleContext, MachineEntry } from 'fed';

/**
 * The @xstate/graph test model of a machine, explored with sample events.
 *
 * A graph vertex is what decides the machine's future, not the whole snapshot: the state value, where a
 * paused team returns to, whether a mission is set (the PLAN_READY guard), the failure, and whether
 * questions are queued (a consultant's next step after an answer). So "paused
 * from scanning" and "paused from preparing" are different vertices (the graph library would otherwise
 * conflate them, docs/design/invariants.md, measured facts), while counters and timestamps do not multiply the graph.
 */
export type LifecycleTestModel = TestModel<AnyMachineSnapshot, EventObject, unknown>;

export function serializeLifecycleState(snapshot: AnyMachineSnapshot): string {
  const context = (snapshot.context ?? {}) as Partial<LifecycleContext<string, string>>;
  return JSON.stringify({
    value: snapshot.value,
    pausedFrom: context.pausedFrom ?? undefined,
    mission: context.mission ? true : undefined,
    failure: context.failure ?? undefined,
    // A consultant's queue decides whether answering leads to the next question; its length does not.
    queued: (context as { queue?: unknown[] }).queue?.length ? true : undefined,
  });
}

export function lifecycleTestModel(entry: MachineEntry, samples: readonly EventObject[]): LifecycleTestModel {
  return createTestModel(entry.machine, {
    events: [...samples],
    serializeState: (snapshot) => serializeLifecycleState(snapshot),
  }) as LifecycleTestModel;
}

/** One snapshot per reachable vertex. */
export function reachableSnapshots(model: LifecycleTestModel): AnyMachineSnapshot[] {
  return Object.values(model.getAdjacencyMap()).map(({ state }) => state);
}

/** A readable, distinct test name: the vertex reached and the events that reach it. */
export function pathName(path: TestPath<AnyMachineSnapshot, EventObject>): string {
  const events = path.steps.slice(1).map((step) => eventLabel(step.event));
  return `${vertexLabel(path.state)} ← ${events.length ? events.join(' → ') : '(start)'}`;
}

export function vertexLabel(snapshot: AnyMachineSnapshot): string {
  const context = (snapshot.context ?? {}) as Partial<LifecycleContext<string, string>>;
  const notes = [
    context.pausedFrom ? `from ${context.pausedFrom}` : '',
    context.failure ? `in ${context.failure.state}` : '',
    context.mission === null ? 'no mission' : '',
  ].filter(Boolean);
  return `${String(snapshot.value)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

/** An event by type, with the payload field a guard decides on when the type has several samples. */
function eventLabel(event: EventObject): string {
  const decisive = ['filesRead', 'bytes', 'failed'].find((key) => key in event);
  return decisive
    ? `${event.type}(${decisive} ${String((event as unknown as Record<string, unknown>)[decisive])})`
    : event.type;
}
