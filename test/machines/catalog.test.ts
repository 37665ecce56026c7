import { describe, expect, test } from 'vitest';
import type { AnyStateNode } from 'xstate';
import * as fed from '../../src/index.js';
import { lifecycleFor, lifecycleMachines, machineCatalog } from '../../src/index.js';

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap(allNodes)];
}

describe('machine catalog', () => {
  test('the package root exports the three machines and their event schemas', () => {
    expect(fed.deliverableMachine.id).toBe('deliverable');
    expect(fed.codingMachine.id).toBe('coding');
    expect(fed.teamStatusMachine.id).toBe('team-status');
    for (const schema of [fed.deliverableEventSchema, fed.codingEventSchema, fed.teamStatusEventSchema]) {
      expect(schema.safeParse({ type: 'PAUSE' }).success).toBe(true);
    }
  });

  test('the actor system finds a lifecycle by archetype, and nothing for archetypes without one', () => {
    expect(lifecycleFor('deliverable')).toBe(lifecycleMachines.deliverable);
    expect(lifecycleFor('coding')?.machine).toBe(fed.codingMachine);
    expect(lifecycleFor('coding')).toMatchObject({ id: 'coding', version: fed.CODING_MACHINE_VERSION, eventSchema: fed.codingEventSchema });
    expect(lifecycleFor('consultant')).toBeUndefined();
    expect(lifecycleFor('toString')).toBeUndefined();
  });

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))('%s: ids are unique and versions positive integers', (_id, entry) => {
    expect(machineCatalog.filter((other) => other.id === entry.id)).toHaveLength(1);
    expect(Number.isInteger(entry.version) && entry.version >= 1).toBe(true);
  });

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))('%s: the schema lists exactly the events the machine handles', (_id, entry) => {
    const handled = new Set(allNodes(entry.machine.root).flatMap((node) => node.ownEvents));
    expect([...entry.events].sort()).toEqual([...handled].sort());
  });

  test.each(machineCatalog.map((entry) => [entry.id, entry] as const))('%s: is a pure definition (no invoke, no delayed transitions)', (_id, entry) => {
    for (const node of allNodes(entry.machine.root)) {
      expect(node.invoke, node.id).toEqual([]);
      expect(node.after, node.id).toEqual([]);
    }
  });
});
