import { z } from 'zod';
import type { MachineEntry } from '../../../machines/catalog.js';
import { eventDocs } from '../../../machines/event-docs.js';

/** An event a team's state accepts now, as an agent sends it: its data's JSON Schema and what it reports. */
export interface AcceptedEvent {
  type: string;
  /** What it reports and who sends it (the lifecycle's own events; the shared ones have none). */
  summary?: string;
  sentBy?: string;
  /** The JSON Schema of `data` (the event's fields without `type`, and without `at`, which fed stamps). */
  data: Record<string, unknown>;
}

/** Fields of an event fed sets itself, never the agent. */
const STAMPED = ['type', 'at'];

/**
 * The events of `types` as a lifecycle's event schema defines them — generated from the zod schema fed
 * validates `fed event` with, so what the agent is shown is what fed accepts.
 */
export function acceptedEvents(entry: MachineEntry, types: readonly string[]): AcceptedEvent[] {
  const options = (entry.eventSchema as unknown as { options: readonly z.ZodObject[] }).options;
  return types.flatMap((type) => {
    const option = options.find((o) => (o.shape.type as z.ZodLiteral).value === type);
    if (!option) return [];
    const doc = eventDocs.get(option);
    return [{ type, summary: doc?.summary, sentBy: doc?.sentBy, data: dataSchema(option) }];
  });
}

function dataSchema(option: z.ZodObject): Record<string, unknown> {
  const schema = z.toJSONSchema(option, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
    required?: string[];
    $schema?: string;
  } & Record<string, unknown>;
  const { $schema: _, ...rest } = schema;
  const properties = Object.fromEntries(Object.entries(rest.properties ?? {}).filter(([k]) => !STAMPED.includes(k)));
  const required = (rest.required ?? []).filter((k) => !STAMPED.includes(k));
  return { ...rest, properties, required };
}
