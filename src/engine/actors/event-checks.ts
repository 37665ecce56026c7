import { acceptedEventTypes, checkEvent, type MachineEntry } from '../../../machines/catalog.js';
import { documentedEvents } from '../../../machines/event-docs.js';
import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import { InvalidInputError } from '../../core/errors.js';
import { zodProblemText } from '../../core/schema/problems.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { stateOf } from './state-of.js';

/** Validate an agent's event with the machine's zod schema, stamped with the time it was reported. */
export function validateAgentEvent(
  entry: MachineEntry,
  team: RegistryEntry,
  raw: { type: string },
  at: string,
): { type: string } {
  if (!entry.events.includes(raw.type)) {
    throw new InvalidInputError(
      `unknown event "${raw.type}" for the ${entry.id} lifecycle of team "${team.domainId}"; events: ${entry.events.join(', ')}`,
    );
  }
  const parsed = entry.eventSchema.safeParse({ at, ...raw }, { reportInput: true });
  if (!parsed.success) {
    const problems = zodProblemText(parsed.error);
    throw new InvalidInputError(`invalid ${raw.type} event for team "${team.domainId}": ${problems}`);
  }
  return parsed.data as { type: string };
}

/** Why `snapshot` does not accept `event`, or undefined when it does. */
export function refusalOf(
  entry: MachineEntry,
  team: RegistryEntry,
  snapshot: LifecycleSnapshot,
  event: { type: string },
): string | undefined {
  const check = checkEvent(snapshot, event);
  if (check.accepted) return undefined;
  if (check.reason === 'condition-not-met')
    return `${event.type} is not allowed here with this payload or context (${conditionHint(entry, event.type).replaceAll('<team>', team.domainId)}); ${acceptedText(check.acceptedTypes)}`;
  return stateRefusal(entry, snapshot, event.type, check.acceptedTypes);
}

/**
 * Why `snapshot` refuses an event of `type` whatever its data — its lifecycle is over, or its state takes
 * no such event — or undefined when some data may be accepted. Asked before the data is checked: a caller
 * told to add a field would then be refused for the state anyway.
 */
export function stateRefusalOf(entry: MachineEntry, snapshot: LifecycleSnapshot, type: string): string | undefined {
  const acceptedTypes = acceptedEventTypes(snapshot);
  if (snapshot.status === 'active' && acceptedTypes.includes(type)) return undefined;
  return stateRefusal(entry, snapshot, type, acceptedTypes);
}

function stateRefusal(entry: MachineEntry, snapshot: LifecycleSnapshot, type: string, acceptedTypes: string[]): string {
  return snapshot.status !== 'active'
    ? `${stateOf(snapshot)} is final; the ${entry.id} lifecycle is over and accepts no event`
    : `${type} is not accepted in ${stateOf(snapshot)}; ${acceptedText(acceptedTypes)}`;
}

function acceptedText(acceptedTypes: readonly string[]): string {
  return acceptedTypes.length ? `it accepts ${acceptedTypes.join(', ')}` : 'it accepts no event';
}

/** What a guarded event needs, for refusals that say how to fix the call: its own docs say, else the shared events'. `<team>` in it stands for the team. */
function conditionHint(entry: MachineEntry, type: string): string {
  const schema = entry.eventSchema as unknown as Parameters<typeof documentedEvents>[0];
  const own = documentedEvents(schema).find((event) => event.type === type)?.doc.needs;
  if (own) return own;
  return type === 'RESUME'
    ? 'resume returns to the state the team was paused in'
    : 'see the lifecycle diagram in diagrams/';
}
