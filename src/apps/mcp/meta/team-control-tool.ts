import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { setTeamStatus } from '../../../engine/actors/team-status-command.js';
import type { Federation } from '../../../engine/context.js';
import { retryTeam } from '../../run/team-retry.js';
import { registerFedTool } from '../fed-tool.js';
import { TEAM_ARGUMENT } from './meta-arguments.js';

const CONTROL_ACTIONS = ['pause', 'resume', 'retry'] as const;

/** `fed_team_control`: `fed team pause|resume|retry`, the same operations with the same refusals. */
export function registerTeamControlTool(server: McpServer, fed: Federation): void {
  registerFedTool(
    server,
    'fed_team_control',
    {
      description:
        'Pause a team (its lifecycle stops taking signals until resumed), resume a paused one, or retry a failed ' +
        'one (a new run from the start of its lifecycle with the same mission; the earlier run is kept). A ' +
        'resumed or retried team works again at its next launch (fed launch --team <team>, or fed run).',
      input: z.strictObject({
        team: TEAM_ARGUMENT,
        action: z.enum(CONTROL_ACTIONS).describe('pause, resume or retry'),
      }),
      // pause and resume: the status change (from, to); retry: the new run (run, mission, keptAs).
      output: z.looseObject({ team: z.string() }),
    },
    async ({ team, action }) => {
      if (action === 'retry') return { ...(await retryTeam(fed, team, fed.config)) };
      const change = await setTeamStatus(fed, team, { type: action === 'pause' ? 'PAUSE' : 'RESUME' });
      return { team: change.team.domainId, from: change.from, to: change.to };
    },
  );
}
