import {
  getNextTransitions,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventFromLogic,
  type SnapshotFrom,
} from 'xstate';
import type { z } from 'zod';
import {
  getTeamStatusMachine,
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
} from './team-status.machine.js';

/**
 * What a runtime needs beside a machine: the id and version stored next to persisted snapshots, the zod
 * schema that validates an event before it is sent, and the list of event types (for help texts and
 * refusals). Each team archetype makes the entry of its lifecycle (src/engine/archetypes/); the list of every
 * machine is `machineCatalog` in src/engine/archetypes/catalog.ts.
 */
export interface MachineEntry<TMachine extends AnyStateMachine = AnyStateMachine> {
  id: string;
  version: number;
  readonly machine: TMachine;
  eventSchema: z.ZodType<EventFromLogic<TMachine>>;
  /** Every event type the machine knows, in schema order. */
  events: readonly EventFromLogic<TMachine>['type'][];
}

interface EventUnionSchema<TEvent> extends z.ZodType<TEvent> {
  options: readonly { shape: { type: { value: unknown } } }[];
}

/**
 * The entry of the machine `machine` builds (once, on first use: on-first-use.ts), whose id is `id`. The
 * entry is made as its module loads; the machine only when a command reads `machine`.
 */
export function machineEntry<TMachine extends AnyStateMachine>(
  machine: () => TMachine,
  id: string,
  version: number,
  eventSchema: EventUnionSchema<EventFromLogic<TMachine>>,
): MachineEntry<TMachine> {
  // The event list is read off the schema so the two can never disagree.
  const events = eventSchema.options.map((option) => option.shape.type.value as EventFromLogic<TMachine>['type']);
  return {
    id,
    version,
    get machine() {
      return machine();
    },
    eventSchema,
    events,
  };
}

/**
 * `snapshot` read as a snapshot of `entry`'s machine, its context and states typed — for code that knows
 * which lifecycle a team has (a coding team's review) but holds it as any lifecycle's. A snapshot of
 * another machine is a programming error, thrown loudly.
 */
export function snapshotOfMachine<TMachine extends AnyStateMachine>(
  entry: MachineEntry<TMachine>,
  snapshot: Pick<AnyMachineSnapshot, 'machine'>,
): SnapshotFrom<TMachine> {
  if (snapshot.machine.id !== entry.id)
    throw new Error(`expected a snapshot of the ${entry.id} machine, got one of ${snapshot.machine.id}`);
  return snapshot as SnapshotFrom<TMachine>;
}

export const teamStatusEntry = machineEntry(
  getTeamStatusMachine,
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
);

/**
 * The event types the current state has transitions for — what to list when an event is refused. A type
 * listed here can still be refused by its guard (DOCUMENT_WRITTEN with 0 bytes); `checkEvent` tells which.
 * A finished machine accepts nothing.
 */
export function acceptedEventTypes(snapshot: AnyMachineSnapshot): string[] {
  if (snapshot.status !== 'active') return [];
  // xstate's public list of the transitions the active state nodes have, innermost state first, guards not
  // evaluated — so it stays right if a machine ever gains nested states. An eventless (`always`) transition
  // names no event and a wildcard no single one; one that neither targets a state nor acts accepts nothing.
  const types = getNextTransitions(snapshot)
    .filter(
      (t) =>
        t.eventType !== '' &&
        !t.eventType.includes('*') &&
        (t.target !== undefined || t.actions.length > 0 || t.reenter),
    )
    .map((t) => t.eventType);
  return [...new Set(types)];
}

export type EventCheck =
  | { accepted: true }
  | {
      accepted: false;
      /** `final`: the lifecycle is over; `not-accepted`: the state has no transition for this event type;
       *  `condition-not-met`: it has, but the event's guard refused this payload or context. */
      reason: 'final' | 'not-accepted' | 'condition-not-met';
      acceptedTypes: string[];
    };

/** Whether `snapshot` accepts `event`, and if not, why — so a refusal can say what would work instead. */
export function checkEvent(snapshot: AnyMachineSnapshot, event: { type: string }): EventCheck {
  if (snapshot.can(event)) return { accepted: true };
  const acceptedTypes = acceptedEventTypes(snapshot);
  if (snapshot.status !== 'active') return { accepted: false, reason: 'final', acceptedTypes };
  const reason = acceptedTypes.includes(event.type) ? 'condition-not-met' : 'not-accepted';
  return { accepted: false, reason, acceptedTypes };
}
