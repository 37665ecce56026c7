import { describe, expect, test } from 'vitest';
import { deliverableEntry } from 'fed/testing';
import { lifecycleTestModel, serializeLifecycleState } from '../model/lifecycle-model.js';
import { samplesFor } from '../model/lifecycle-samples.js';

const deliverableSamples = samplesFor.deliverable!;
import { actorSystemUnderTest, runPath, type SystemUnderTest } from '../model/path-runner.js';

/** The runner must catch a system that diverges from the model, or the model-based tests prove nothing. */
const model = lifecycleTestModel(deliverableEntry, deliverableSamples);
const pathModel = {
  machine: deliverableEntry.machine,
  eventTypes: deliverableEntry.events,
  vertexOf: serializeLifecycleState,
};
const toPausedScanning = model
  .getShortestPaths()
  .find((path) =>
    path.steps.some((step) => step.event.type === 'PAUSE' && step.state.context.pausedFrom === 'scanning'),
  )!;

describe('path runner', () => {
  test('passes a faithful system and checks every step', async () => {
    let observed = 0;
    await runPath(toPausedScanning, pathModel, actorSystemUnderTest(deliverableEntry.machine), {
      afterStep: () => void observed++,
    });
    expect(observed).toBe(toPausedScanning.steps.length);
  });

  test('replays with the input the system starts with', async () => {
    const input = { at: '2025-02-01T00:00:00.000Z' };
    const sut = actorSystemUnderTest(deliverableEntry.machine, { input });
    await runPath(toPausedScanning, { ...pathModel, input }, sut);
    await expect(runPath(toPausedScanning, pathModel, sut)).rejects.toThrow(/after xstate\.init/);
  });

  test('fails a system that drops an event, naming the step', async () => {
    const real = actorSystemUnderTest(deliverableEntry.machine);
    const dropsPause: SystemUnderTest = {
      ...real,
      send: (event) => (event.type === 'PAUSE' ? undefined : real.send(event)),
    };
    await expect(runPath(toPausedScanning, pathModel, dropsPause)).rejects.toThrow(/after PAUSE/);
  });

  test('fails a system whose stored context differs from the model', async () => {
    const real = actorSystemUnderTest(deliverableEntry.machine);
    const losesSources: SystemUnderTest = {
      ...real,
      async observe() {
        const state = await real.observe();
        return { ...state, context: { ...(state.context as object), sources: [] } };
      },
    };
    await expect(runPath(toPausedScanning, pathModel, losesSources)).rejects.toThrow(/after PLAN_READY/);
  });

  test('refuses a path with an event the model does not accept', async () => {
    const planWithoutMission = deliverableSamples.find((event) => event.type === 'PLAN_READY')!;
    const [refusing] = model.getPathsFromEvents([planWithoutMission], { serializeState: serializeLifecycleState });
    await expect(runPath(refusing!, pathModel, actorSystemUnderTest(deliverableEntry.machine))).rejects.toThrow(
      /PLAN_READY is accepted in "preparing"/,
    );
  });
});
