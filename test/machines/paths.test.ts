import { describe, expect, test } from 'vitest';
import type { AnyStateMachine, EventObject } from 'xstate';
import { NOTHING_FOUND_REASON, type LifecycleContext } from 'fed';
import { machineCatalog } from 'fed/testing';
import { lifecycleTestModel, pathName, serializeLifecycleState } from '../model/lifecycle-model.js';
import { FAIL_REASON, samplesFor, scenariosFor } from '../model/lifecycle-samples.js';
import { actorSystemUnderTest, runPath, type ObservedState } from '../model/path-runner.js';

/**
 * Model-based tests: every shortest path @xstate/graph finds through each machine (explored with the
 * sample events), and the scenarios that go round its loops, are played against a real actor restored
 * from its persisted JSON after every event: after every step it must hold exactly the model's state and
 * context, and the lifecycle invariants below must hold. A lifecycle's paths are also played against a
 * live actor, for the invariants alone (its states are the model's own).
 */
type Context = LifecycleContext<string, string>;

/** What must be true after any step of a lifecycle (deliverable, coding, consultant). */
function lifecycleInvariants(machine: AnyStateMachine) {
  const initial = String(machine.config.initial);
  const finals = Object.entries(machine.config.states ?? {})
    .filter(([, node]) => node.type === 'final')
    .map(([name]) => name);
  let previous: string | undefined;
  return (observed: ObservedState, event: EventObject & { at?: string }): void => {
    const context = observed.context as Context;
    const value = String(observed.value);
    expect(context.pausedFrom !== null, 'pausedFrom is set exactly while paused').toBe(value === 'paused');
    expect(context.failure !== null, 'a failure is recorded exactly when failed').toBe(value === 'failed');
    if (event.type === 'FAIL') expect(context.failure?.reason, 'FAIL keeps its reason').toBe(FAIL_REASON);
    if (event.type === 'SCAN_COMPLETE' && value === 'failed')
      expect(context.failure?.reason).toBe(NOTHING_FOUND_REASON);
    const beyondStart =
      ![initial, 'paused', 'failed'].includes(value) && !(value === 'retired' && previous === initial);
    if (beyondStart)
      expect(context.mission, 'no work starts without a mission').toMatchObject({ signalId: 'sig-mission' });
    expect(observed.status).toBe(finals.includes(value) ? 'done' : 'active');
    // Every sample is stamped, so the time a state was entered is the time of the event that entered it.
    if (event.type !== 'xstate.init' && value !== previous)
      expect(context.enteredAt[value], `entered at ${event.type}`).toBe(event.at);
    previous = value;
  };
}

for (const entry of machineCatalog) {
  const samples = samplesFor[entry.id]!;
  const model = lifecycleTestModel(entry, samples);
  const paths = [
    ...model.getShortestPaths().map((path) => [pathName(path), path] as const),
    ...Object.entries(scenariosFor[entry.id]!).map(
      ([name, events]) =>
        [name, model.getPathsFromEvents([...events], { serializeState: serializeLifecycleState })[0]!] as const,
    ),
  ];
  const isLifecycle = entry.id !== 'team-status';
  const pathModel = { machine: entry.machine, eventTypes: entry.events, vertexOf: serializeLifecycleState };

  describe(`${entry.id} machine: paths`, () => {
    test('the paths reach every reachable state', () => {
      const reached = new Set(
        paths.flatMap(([, path]) => path.steps.map((step) => serializeLifecycleState(step.state))),
      );
      expect([...reached].sort()).toEqual(Object.keys(model.getAdjacencyMap()).sort());
      expect(paths.every(([, path]) => path.steps[0]?.event.type === 'xstate.init')).toBe(true);
    });

    // Live, the actor runs the model's own machine, so its states match the model's by construction: what
    // that run can catch is a broken lifecycle invariant, so it runs only where there are invariants.
    // Restored from JSON after every event, the states are checked too: that is what persistence must keep.
    for (const restoreEachStep of isLifecycle ? [false, true] : [true]) {
      const mode = restoreEachStep ? 'restored from JSON after every event' : 'live actor, the lifecycle invariants';
      test.each(paths)(`%s (${mode})`, async (_name, path) => {
        await runPath(path, pathModel, actorSystemUnderTest(entry.machine, { restoreEachStep }), {
          afterStep: isLifecycle ? lifecycleInvariants(entry.machine) : undefined,
        });
      });
    }
  });
}
