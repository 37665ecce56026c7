import { teamStatusEntry, type MachineEntry } from '../../../machines/catalog.js';
import { RefusedError } from '../../core/errors.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Archetype } from './archetype.js';
import { codingArchetype } from './coding/index.js';
import { consultantArchetype } from './consultant/index.js';
import { deliverableArchetype } from './deliverable/index.js';

/**
 * Every team archetype with a lifecycle, one line each. Adding one is its folder plus a line here;
 * nothing else in fed names an archetype (test/unit/archetypes.test.ts keeps it so).
 */
export const archetypes: readonly Archetype[] = [deliverableArchetype, codingArchetype, consultantArchetype];

/** The archetype of a team onboarded without one named. */
export const DEFAULT_ARCHETYPE = deliverableArchetype.id;

/** The archetype of this id, or undefined for a custom one fed has no lifecycle for. */
export function archetypeFor(id: string): Archetype | undefined {
  return archetypes.find((archetype) => archetype.id === id);
}

/** The archetype of a team; refused by name for one without a lifecycle. */
export function archetypeOf(team: RegistryEntry): Archetype {
  const archetype = archetypeFor(team.archetypeId);
  if (!archetype) {
    throw new RefusedError(
      'NO_LIFECYCLE',
      `team "${team.domainId}" has archetype "${team.archetypeId}", which has no lifecycle machine (archetypes with one: ${archetypes.map((a) => a.id).join(', ')})`,
    );
  }
  return archetype;
}

/** The lifecycle of an archetype, or undefined for one without a machine (a custom archetype). */
export function lifecycleFor(id: string): MachineEntry | undefined {
  return archetypeFor(id)?.lifecycle;
}

/** Every machine fed defines, in the order diagrams list them: the registry status, then each lifecycle. */
export const machineCatalog: readonly MachineEntry[] = [
  teamStatusEntry,
  ...archetypes.map((archetype) => archetype.lifecycle),
];

/** The archetype whose lifecycle machine has this id. */
export function archetypeOfMachine(machineId: string): Archetype | undefined {
  return archetypes.find((archetype) => archetype.lifecycle.id === machineId);
}
