import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { InvalidInputError } from '../../../core/errors.js';
import { MAX_EVENT_DATA_BYTES } from '../../../core/schema/event-data.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { lifecycleFor } from '../../../engine/archetypes/catalog.js';
import { reportInspectedEvent } from '../../launch/supervise/agent-events.js';
import { registerFedTool } from '../fed-tool.js';
import type { TeamToolContext } from '../team-tools.js';

/** The arguments of fed_event for a team: its lifecycle's event types; the data is checked by the machine's schema. */
export function eventInput(team: RegistryEntry) {
  // A team of a custom archetype has no lifecycle: its server still starts, and an event is refused by fed.
  const events = lifecycleFor(team.archetypeId)?.events;
  const type = events ? z.enum(events as [string, ...string[]]) : z.string();
  return z.strictObject({
    type: type.describe('the event (fed_whoami lists the ones your state accepts)'),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        `the event's fields (fed_whoami gives each event's data schema), without type; at most ${MAX_EVENT_DATA_BYTES} bytes as JSON`,
      ),
  });
}

const eventOutput = z.looseObject({
  team: z.string(),
  event: z.string(),
  from: z.string().nullable().describe('the state before the event'),
  to: z.string().nullable().describe('the state after it'),
  state: z.string(),
  warnings: z.array(z.string()).optional(),
});

/**
 * `fed_event`: report progress — an event to the team's lifecycle, through the same path as `fed event`
 * (validated against the machine's schema and state, completions judged, journaled).
 */
export function registerEvent(server: McpServer, context: TeamToolContext, team: RegistryEntry): void {
  registerFedTool(
    server,
    'fed_event',
    {
      description:
        "Report progress: send an event to your team's lifecycle, with its data (a coding team's test results go " +
        "in its events' data). fed validates it against your lifecycle: an event your state does not accept is " +
        'refused with the events it accepts. fed_whoami lists them with their data schemas.',
      input: eventInput(team),
      output: eventOutput,
    },
    async ({ type, data }) => {
      const { fed } = context;
      if (data && 'type' in data)
        throw new InvalidInputError('data must not contain "type": the event type is the `type` argument');
      const current = await context.team();
      // Launched with an inspected launch: the transitions go to the launcher's inspection log too.
      const warnings: string[] = [];
      const result = await reportInspectedEvent(fed, current, { ...data, type }, fed.config, fed.env, (warning) =>
        warnings.push(warning),
      );
      warnings.push(...result.warnings);
      const line = result.steps[0]?.line;
      return {
        team: current.domainId,
        event: type,
        from: line?.from ?? null,
        to: line?.to ?? null,
        state: result.state,
        ...(warnings.length ? { warnings } : {}),
      };
    },
  );
}
