import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Federation } from '../../../engine/context.js';
import { teamDetail } from '../../monitor/team-detail.js';
import { registerFedTool } from '../fed-tool.js';
import { federationStatus } from './federation-status.js';
import { TEAM_ARGUMENT } from './meta-arguments.js';

/** `fed_status` and `fed_team`: what meta sees of the federation, read-only (`fed monitor`, `fed runs`, `fed team show`). */
export function registerStatusTools(server: McpServer, fed: Federation): void {
  registerFedTool(
    server,
    'fed_status',
    {
      description:
        'Every team of the federation at a glance: archetype, registry status (active, paused, archived), lifecycle ' +
        "state and mission, health (with why not), unacknowledged signals, its last run's outcome and what its runs " +
        "cost; then meta's inbox counts and the totals. Unhealthy teams come first. fed_team gives one team in detail.",
      input: z.strictObject({}),
    },
    async () => ({ ...(await federationStatus(fed)) }),
  );

  registerFedTool(
    server,
    'fed_team',
    {
      description:
        'One team in detail (as `fed team show --json`): its registry entry, its lifecycle (state, since when, mission, ' +
        'failure, signals it has not acknowledged, its last transitions), its last run and its runs added up.',
      input: z.strictObject({ team: TEAM_ARGUMENT }),
    },
    async ({ team }) => ({ ...(await teamDetail(fed, team)) }),
  );
}
