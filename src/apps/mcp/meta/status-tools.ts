import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Federation } from '../../../engine/context.js';
import { teamDetail } from '../../monitor/team-detail.js';
import { registerFedTool } from '../fed-tool.js';
import { federationStatus } from './federation-status.js';
import { TEAM_ARGUMENT } from './meta-arguments.js';

const record = z.record(z.string(), z.unknown());

const statusOutput = z.looseObject({
  generatedAt: z.string(),
  teams: z.array(
    z.looseObject({
      team: z.string(),
      archetype: z.string(),
      status: z.string(),
      state: z.string().nullable(),
      mission: z.unknown(),
      healthy: z.boolean(),
      reasons: z.array(z.string()),
      inbox: record,
      lastRun: record.nullable(),
      runs: record,
    }),
  ),
  meta: record,
  totals: record,
});

/** `fed team show --json`: the registry entry with its lifecycle, last run and runs added up. */
const teamOutput = z.looseObject({
  domainId: z.string(),
  archetypeId: z.string(),
  status: z.string(),
  lifecycle: record.nullable(),
  lastRun: record.nullable(),
  runTotals: record,
});

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
      output: statusOutput,
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
      output: teamOutput,
    },
    async ({ team }) => ({ ...(await teamDetail(fed, team)) }),
  );
}
