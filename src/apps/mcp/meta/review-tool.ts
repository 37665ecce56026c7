import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { InvalidInputError } from '../../../core/errors.js';
import { decideReview, reviewTeam } from '../../../engine/archetypes/coding/review.js';
import { mergeTeam } from '../../../engine/archetypes/coding/merge.js';
import type { Federation } from '../../../engine/context.js';
import { registerFedTool } from '../fed-tool.js';
import { TEAM_ARGUMENT } from './meta-arguments.js';

const REVIEW_ACTIONS = ['show', 'approve', 'request-changes', 'merge'] as const;

/** `fed_review`: meta's side of a coding team's change, as `fed team review|merge` (the same operations, the same refusals). */
export function registerReviewTool(server: McpServer, fed: Federation): void {
  registerFedTool(
    server,
    'fed_review',
    {
      description:
        "A coding team's change: show it (its commits, the diff against the base branch, the tests it reported), " +
        'approve it at the commit its branch is at (pr-review → pr-approved), request changes (pr-review → ' +
        'implementing; `changes` goes to the team as a directive), or merge an approved branch into the base ' +
        'branch (its worktree and branch are removed and the team archived). Refused, changing nothing, for a ' +
        'team that is not a coding team or not in review.',
      input: z.strictObject({
        team: TEAM_ARGUMENT,
        action: z
          .enum(REVIEW_ACTIONS)
          .default('show')
          .describe('show (the default), approve, request-changes or merge'),
        changes: z.string().optional().describe('with request-changes: what the team is to change'),
      }),
      // Each action answers its own shape (show: the change; approve, request-changes: the new state; merge: the commit).
      output: z.looseObject({ team: z.string() }),
    },
    async ({ team, action, changes }) => {
      if (changes !== undefined && action !== 'request-changes')
        throw new InvalidInputError(`changes goes with action "request-changes", not "${action}"`);
      switch (action) {
        case 'show':
          return { ...(await reviewTeam(fed, team)) };
        case 'approve': {
          const decided = await decideReview(fed, team, { approve: true });
          return { ...decided, next: `merge it: fed_review {"team":"${decided.team}","action":"merge"}` };
        }
        case 'request-changes':
          if (changes === undefined || changes.trim() === '')
            throw new InvalidInputError(
              'request-changes needs the changes to make, e.g. changes: "rename the handler"',
            );
          return {
            ...(await decideReview(fed, team, { approve: false, changes })),
            next: 'its next launch gets the changes as a directive',
          };
        case 'merge':
          return { ...(await mergeTeam(fed, team)) };
      }
    },
  );
}
