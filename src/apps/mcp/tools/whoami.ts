import type { McpServer } from '@modelcontextprotocol/server';
import { join } from 'node:path';
import { z } from 'zod';
import { acceptedEventTypes } from '../../../../machines/catalog.js';
import { statusOf } from '../../../core/find-team.js';
import { teamStatusSchema } from '../../../core/schema/registry.js';
import { loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { archetypeOf } from '../../../engine/archetypes/catalog.js';
import { acceptedEvents } from '../event-schemas.js';
import { registerFedTool } from '../fed-tool.js';
import { teamLimitValues } from '../../launch/team-agent.js';
import type { TeamToolContext } from '../team-tools.js';

const whoamiOutput = z.looseObject({
  team: z.string(),
  archetype: z.looseObject({ id: z.string(), summary: z.string() }),
  status: teamStatusSchema.describe('the registry status: archived is final, and then nothing is accepted'),
  state: z.string(),
  since: z.string().nullable(),
  pausedFrom: z.string().nullable(),
  mission: z.unknown().describe('the mission directive the team works on, or null'),
  accepts: z.array(
    z.looseObject({
      type: z.string(),
      summary: z.string().optional(),
      sentBy: z.string().optional(),
      data: z.record(z.string(), z.unknown()).describe("the JSON Schema of the event's data"),
    }),
  ),
  workspace: z.string(),
  deliverablePath: z.string().nullable(),
  limits: z.record(z.string(), z.unknown()),
});

/** `fed_whoami`: who the agent is in the federation and what it can report now. */
export function registerWhoami(server: McpServer, context: TeamToolContext): void {
  registerFedTool(
    server,
    'fed_whoami',
    {
      description:
        'Who you are in the federation: your team, its archetype, its registry status (active, paused, archived), ' +
        'its lifecycle state and mission, the events it accepts now (each with the JSON Schema of its data, for fed_event), your deliverable path and ' +
        'your run limits. Call it first, and again when unsure what to report next.',
      input: z.strictObject({}),
      output: whoamiOutput,
    },
    async () => {
      const { fed } = context;
      const team = await context.team();
      const archetype = archetypeOf(team);
      const lifecycle = await loadTeamLifecycle(team, fed.backend.lifecycles);
      const { snapshot } = lifecycle;
      const state = stateOf(snapshot);
      const status = statusOf(team);
      return {
        team: team.domainId,
        archetype: { id: archetype.id, summary: archetype.summary },
        status,
        state,
        since: snapshot.context.enteredAt?.[state] ?? null,
        pausedFrom: snapshot.context.pausedFrom ?? null,
        mission: snapshot.context.mission ?? null,
        // An archived team's lifecycle stays where archiving left it, but no longer changes: it accepts nothing.
        accepts: status === 'archived' ? [] : acceptedEvents(lifecycle.entry, acceptedEventTypes(snapshot)),
        workspace: fed.workspace(team),
        deliverablePath: archetype.producesDocument ? join(team.location, fed.config.deliverable) : null,
        // The team's own limits where its entry in agent.teams sets them.
        limits: teamLimitValues(fed.config, team.domainId),
      };
    },
  );
}
