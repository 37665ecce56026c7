import { describe, expect, test } from 'vitest';
import type { AnyStateNode } from 'xstate';
import * as fed from 'fed';
import { archetypeFor, archetypes, deliverableEntry, lifecycleFor, machineCatalog } from 'fed/testing';

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap(allNodes)];
}

describe('machine catalog', () => {
  test('the package root exports the four machines and their event schemas', () => {
    expect(fed.deliverableMachine.id).toBe('deliverable');
    expect(fed.codingMachine.id).toBe('coding');
    expect(fed.consultantMachine.id).toBe('consultant');
    expect(fed.teamStatusMachine.id).toBe('team-status');
    for (const schema of [
      fed.deliverableEventSchema,
      fed.codingEventSchema,
      fed.consultantEventSchema,
      fed.teamStatusEventSchema,
    ]) {
      expect(schema.safeParse({ type: 'PAUSE' }).success).toBe(true);
    }
  });

  test('the actor system finds a lifecycle by archetype, and nothing for archetypes without one', () => {
    expect(lifecycleFor('deliverable')).toBe(deliverableEntry);
    expect(lifecycleFor('coding')?.machine).toBe(fed.codingMachine);
    expect(lifecycleFor('coding')).toMatchObject({
      id: 'coding',
      version: fed.CODING_MACHINE_VERSION,
      eventSchema: fed.codingEventSchema,
    });
    expect(lifecycleFor('consultant')).toMatchObject({
      id: 'consultant',
      version: fed.CONSULTANT_MACHINE_VERSION,
      eventSchema: fed.consultantEventSchema,
    });
    expect(lifecycleFor('reviewer')).toBeUndefined();
    expect(lifecycleFor('toString')).toBeUndefined();
  });

  test('the machine catalog is the registry status plus every archetype lifecycle, each archetype once', () => {
    expect(machineCatalog.map((entry) => entry.id)).toEqual(['team-status', ...archetypes.map((a) => a.lifecycle.id)]);
    for (const archetype of archetypes) expect(archetypeFor(archetype.id)).toBe(archetype);
    expect(new Set(archetypes.map((a) => a.id)).size).toBe(archetypes.length);
  });

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))(
    '%s: ids are unique and versions positive integers',
    (_id, entry) => {
      expect(machineCatalog.filter((other) => other.id === entry.id)).toHaveLength(1);
      expect(Number.isInteger(entry.version) && entry.version >= 1).toBe(true);
    },
  );

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))(
    '%s: the schema lists exactly the events the machine handles',
    (_id, entry) => {
      const handled = new Set(allNodes(entry.machine.root).flatMap((node) => node.ownEvents));
      expect([...entry.events].sort()).toEqual([...handled].sort());
    },
  );

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))(
    '%s: runs only assign actions (a walk moves it on one actor scope, where no child may register)',
    (_id, entry) => {
      const provided = (entry.machine.implementations.actions ?? {}) as Record<string, unknown>;
      const kindOf = (action: unknown): unknown => {
        const named = typeof action === 'string' ? action : (action as { type?: unknown }).type;
        const found = typeof action === 'function' ? action : (provided[named as string] ?? action);
        return (found as { type?: unknown }).type;
      };
      for (const node of allNodes(entry.machine.root)) {
        const actions = [
          ...node.entry,
          ...node.exit,
          ...[...node.transitions.values()].flat().flatMap((transition) => transition.actions),
        ];
        for (const action of actions) expect(kindOf(action), node.id).toBe('xstate.assign');
      }
    },
  );

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))(
    '%s: is a pure definition (no invoke, no delayed transitions)',
    (_id, entry) => {
      for (const node of allNodes(entry.machine.root)) {
        expect(node.invoke, node.id).toEqual([]);
        expect(node.after, node.id).toEqual([]);
      }
    },
  );
});
