import { checkEvent, type MachineEntry } from '../../../machines/catalog.js';
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
  const accepted = check.acceptedTypes.length ? `it accepts ${check.acceptedTypes.join(', ')}` : 'it accepts no event';
  switch (check.reason) {
    case 'final':
      return `${stateOf(snapshot)} is final; the ${entry.id} lifecycle is over and accepts no event`;
    case 'condition-not-met':
      return `${event.type} is not allowed here with this payload or context (${conditionHint(entry, event.type).replaceAll('<team>', team.domainId)}); ${accepted}`;
    case 'not-accepted':
      return `${event.type} is not accepted in ${stateOf(snapshot)}; ${accepted}`;
  }
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
