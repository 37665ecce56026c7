import { describe, expect, it } from 'vitest';
import { restoreSnapshot } from '../../../src/engine/actors/restore-snapshot.js';
import { archetypes, DEDUPE_UNTIL_ACK, initialPersistedSnapshot } from 'fed/testing';
import type { LifecycleEnvelope } from 'fed';

/** An envelope of `entry`'s machine in `state`, with the initial context (restore checks the context, not its fit to the state). */
function envelopeIn(entry: (typeof archetypes)[number]['lifecycle'], state: string): LifecycleEnvelope {
  const initial = initialPersistedSnapshot(entry, '2026-01-01T00:00:00.000Z') as { context: object };
  return {
    machineId: entry.id,
    machineVersion: entry.version,
    snapshot: { value: state, context: structuredClone(initial.context), status: undefined },
    seq: 0,
    processed: [],
    dedupe: DEDUPE_UNTIL_ACK,
    journalTail: [],
    pendingReports: [],
    savedAt: '2026-01-01T00:00:00.000Z',
  } as unknown as LifecycleEnvelope;
}

describe('restoring a snapshot resolves each state value once per machine', () => {
  for (const { lifecycle: entry } of archetypes) {
    it(`${entry.id}: every state restores as xstate's resolveState makes it, each with its own context, children and history`, () => {
      for (const state of Object.keys(entry.machine.root.states)) {
        const envelope = envelopeIn(entry, state);
        const fresh = entry.machine.resolveState({ value: state, context: envelope.snapshot.context as never });
        // Status: a final state's is done; restore refuses a persisted status that disagrees.
        (envelope.snapshot as { status?: string }).status = fresh.status;
        const first = restoreSnapshot(envelope, entry, 'first.json');
        const second = restoreSnapshot(envelopeIn(entry, state), entry, 'second.json');
        for (const restored of [first, second]) {
          expect(restored.value).toEqual(fresh.value);
          expect(restored.status).toBe(fresh.status);
          expect([...restored.tags]).toEqual([...fresh.tags]);
          expect(restored._nodes.map((node) => node.id)).toEqual(fresh._nodes.map((node) => node.id));
          expect(restored.matches(state as never)).toBe(true);
          expect(restored.children).toEqual({});
          expect(restored.historyValue).toEqual({});
          expect(entry.machine.getPersistedSnapshot(restored)).toMatchObject({ value: fresh.value });
        }
        expect(first.context).toBe(envelope.snapshot.context);
        expect(second.context).not.toBe(first.context);
        expect(second.children).not.toBe(first.children);
        expect(second.historyValue).not.toBe(first.historyValue);
        // What the restores share cannot be changed through one of them.
        expect(() => (first._nodes as unknown[]).push(null)).toThrow(TypeError);
      }
    });
  }
});
