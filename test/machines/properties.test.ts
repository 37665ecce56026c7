import { describe, expect, test } from 'vitest';
import {
  createActor,
  transition,
  type AnyMachineSnapshot,
  type AnyStateNode,
  type AnyTransitionDefinition,
} from 'xstate';
import { acceptedEventTypes, checkEvent, type LifecycleContext } from 'fed';
import { machineCatalog } from 'fed/testing';
import { lifecycleTestModel, reachableSnapshots, vertexLabel } from '../model/lifecycle-model.js';
import { FAIL_REASON, samplesFor, workStatesFor } from '../model/lifecycle-samples.js';

/**
 * Properties checked in every state the sample events reach (one graph vertex each, so "paused from X"
 * is checked once per X).
 */

const next = (snapshot: AnyMachineSnapshot, event: { type: string }) =>
  transition(snapshot.machine, snapshot, event)[0] as AnyMachineSnapshot;
const sampleOf = (samples: readonly { type: string }[], type: string) => samples.find((s) => s.type === type)!;
const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as LifecycleContext<string, string>;

function allTransitions(node: AnyStateNode): AnyTransitionDefinition[] {
  return [...[...node.transitions.values()].flat(), ...Object.values(node.states).flatMap(allTransitions)];
}

function describeTransition(t: AnyTransitionDefinition): string {
  const guard = t.guard === undefined ? '' : ` [${JSON.stringify(t.guard)}]`;
  return `${t.source.key} --${t.eventType}${guard}--> ${t.target?.map((n) => n.key).join(',') ?? '(stays)'}`;
}

for (const entry of machineCatalog) {
  const samples = samplesFor[entry.id]!;
  const reachable = reachableSnapshots(lifecycleTestModel(entry, samples));
  const active = reachable.filter((s) => s.status === 'active');
  const finals = reachable.filter((s) => s.status === 'done');
  const named = (snapshots: AnyMachineSnapshot[]) => snapshots.map((s) => [vertexLabel(s), s] as const);

  describe(`${entry.id} machine: properties`, () => {
    test('the samples reach active and final states (the properties below are not vacuous)', () => {
      expect(active.length).toBeGreaterThan(1);
      expect(finals.length).toBeGreaterThan(0);
    });

    test.each(named(finals))('final state %s accepts nothing', (_name, snapshot) => {
      expect(acceptedEventTypes(snapshot)).toEqual([]);
      for (const sample of samples) {
        expect(snapshot.can(sample), sample.type).toBe(false);
        expect(checkEvent(snapshot, sample)).toEqual({ accepted: false, reason: 'final', acceptedTypes: [] });
      }
    });

    test.each(named(active))('%s refuses the events it does not accept, and changes nothing', (_name, snapshot) => {
      const accepted = acceptedEventTypes(snapshot);
      expect(accepted.length).toBeGreaterThan(0);
      for (const sample of samples) {
        if (snapshot.can(sample)) {
          expect(accepted, `${sample.type} is accepted, so it is listed`).toContain(sample.type);
          continue;
        }
        const check = checkEvent(snapshot, sample);
        expect(check).toMatchObject({ accepted: false, acceptedTypes: accepted });
        expect(check.accepted === false && check.reason).toBe(
          accepted.includes(sample.type) ? 'condition-not-met' : 'not-accepted',
        );
        const after = next(snapshot, sample);
        expect({ value: after.value, context: after.context }, `${sample.type} is not silently absorbed`).toEqual({
          value: snapshot.value,
          context: snapshot.context,
        });
      }
      for (const type of entry.events.filter((t) => !accepted.includes(t)))
        expect(snapshot.can({ type }), type).toBe(false);
    });

    test('every transition is taken by some sample, and every guarded one also refused by some sample', () => {
      const definitions = allTransitions(entry.machine.root);
      const taken = new Set<AnyTransitionDefinition>();
      const passedOver = new Set<AnyTransitionDefinition>();
      for (const snapshot of active) {
        for (const sample of samples) {
          const selected = entry.machine.getTransitionData(snapshot, sample);
          for (const t of selected) taken.add(t);
          const candidates = definitions.filter(
            (t) => t.eventType === sample.type && snapshot._nodes.includes(t.source),
          );
          for (const t of candidates) if (!selected.includes(t)) passedOver.add(t);
        }
      }
      expect(definitions.filter((t) => !taken.has(t)).map(describeTransition), 'never taken').toEqual([]);
      const guarded = definitions.filter((t) => t.guard !== undefined);
      expect(guarded.filter((t) => !passedOver.has(t)).map(describeTransition), 'never refused').toEqual([]);
    });

    test.each(named(reachable))('%s restores from its persisted JSON', (_name, snapshot) => {
      const actor = createActor(entry.machine, { snapshot });
      const persisted: unknown = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
      const { value, context } = persisted as { value: string; context: unknown };
      // What the actor system does before restoring: the state must exist in the current machine.
      expect(entry.machine.resolveState({ value, context }).value).toEqual(snapshot.value);
      const restored = createActor(entry.machine, { snapshot: persisted as AnyMachineSnapshot }).getSnapshot();
      expect({ value: restored.value, status: restored.status, context: restored.context }).toEqual({
        value: snapshot.value,
        status: snapshot.status,
        context: snapshot.context,
      });
      expect(acceptedEventTypes(restored)).toEqual(acceptedEventTypes(snapshot));
    });

    const workStates = workStatesFor[entry.id];
    if (!workStates) return;

    test('every working state is reached', () => {
      expect(new Set(active.map((s) => s.value))).toEqual(new Set([...workStates, 'paused']));
    });

    test.each(named(active))('FAIL in %s → failed, keeping the reason and where', (_name, snapshot) => {
      const failed = next(snapshot, sampleOf(samples, 'FAIL'));
      expect(failed.value).toBe('failed');
      expect(failed.status).toBe('done');
      expect(contextOf(failed).failure).toEqual({ reason: FAIL_REASON, state: snapshot.value });
      expect(contextOf(failed).mission).toEqual(contextOf(snapshot).mission);
    });

    test.each(named(active))('PAUSE then RESUME in %s → the same state', (_name, snapshot) => {
      const pause = sampleOf(samples, 'PAUSE');
      if (snapshot.value === 'paused') {
        // Pausing twice would forget where to resume to, so it is refused.
        expect(checkEvent(snapshot, pause)).toMatchObject({ accepted: false, reason: 'not-accepted' });
        return;
      }
      const paused = next(snapshot, pause);
      expect(paused.value).toBe('paused');
      expect(contextOf(paused).pausedFrom).toBe(snapshot.value);
      const resumed = next(paused, sampleOf(samples, 'RESUME'));
      expect(resumed.value).toBe(snapshot.value);
      const { enteredAt: _before, ...before } = contextOf(snapshot);
      const { enteredAt: _after, ...after } = contextOf(resumed);
      expect(after).toEqual(before);
    });
  });
}
