import type { Command } from 'commander';
import type { Review } from '../../engine/archetypes/coding/review.js';
import { InvalidInputError } from '../../core/errors.js';
import { mergeMessage, reviewDecisionMessage } from '../../apps/team-control/action-messages.js';
import { renderFields } from '../../core/table.js';
import { federationContext, printJson, type CliIo } from '../io.js';

/**
 * `fed team review|merge`: meta's side of a coding team's change, without a forge. Each loads what it uses
 * when run: every other `fed team` command starts without it.
 */
export function registerTeamReview(team: Command, io: CliIo): void {
  team
    .command('review')
    .description("show a coding team's change (diff against the base branch, reported tests), or decide on it")
    .argument('<team>', 'team id or domain')
    .option(
      '--approve',
      'approve the change at the commit its branch is at (pr-review → pr-approved); then: fed team merge <team>',
    )
    .option(
      '--request-changes <what>',
      "send it back (pr-review → implementing); the team's next launch gets <what> as a directive",
    )
    .option('--json', 'print the review (or the decision) as JSON')
    .action(
      async (
        name: string,
        options: { approve?: boolean; requestChanges?: string; json?: boolean },
        command: Command,
      ) => {
        const ctx = federationContext(command, io);
        if (options.approve && options.requestChanges !== undefined)
          throw new InvalidInputError('--approve and --request-changes exclude each other; pass one');
        if (options.requestChanges !== undefined && options.requestChanges.trim() === '') {
          throw new InvalidInputError(
            '--request-changes needs the changes to make, e.g. --request-changes "rename the handler"',
          );
        }
        if (options.approve || options.requestChanges !== undefined) {
          const verdict = options.approve
            ? ({ approve: true } as const)
            : ({ approve: false, changes: options.requestChanges! } as const);
          const { decideReview } = await import('../../engine/archetypes/coding/review.js');
          const decided = await decideReview(ctx.fed, name, verdict);
          if (options.json) return printJson(io, decided);
          for (const warning of decided.warnings) io.stderr(`warning: ${warning}\n`);
          return io.stdout(`${reviewDecisionMessage(decided, options.approve === true)}\n`);
        }
        const { reviewTeam } = await import('../../engine/archetypes/coding/review.js');
        const review = await reviewTeam(ctx.fed, name);
        if (options.json) return printJson(io, review);
        for (const warning of review.warnings) io.stderr(`warning: ${warning}\n`);
        io.stdout(renderReview(review));
      },
    );

  team
    .command('merge')
    .description("merge an approved coding team's branch into the base branch, then remove its worktree and branch")
    .argument('<team>', 'team id or domain')
    .option('--json', 'print the merge as JSON')
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const { mergeTeam } = await import('../../engine/archetypes/coding/merge.js');
      const merged = await mergeTeam(ctx.fed, name);
      if (options.json) return printJson(io, merged);
      io.stdout(`${mergeMessage(merged)}\n`);
    });
}

function renderReview(review: Review): string {
  const tests = review.lastTestRun
    ? `${review.lastTestRun.passed} passed, ${review.lastTestRun.failed} failed`
    : 'none reported';
  const last = review.lastReview
    ? `${review.lastReview.outcome}${review.lastReview.comments.length ? `: ${review.lastReview.comments.join('; ')}` : ''}`
    : 'none';
  const next =
    review.state === 'pr-review'
      ? `fed team review ${review.team} --approve | --request-changes "<what>"`
      : review.state === 'pr-approved'
        ? `fed team merge ${review.team} (a branch moved since the approval is approved again first)`
        : `(the team is ${review.state}; meta decides once it asks for review)`;
  return `${renderFields([
    ['team', review.team],
    ['state', review.state],
    ['branch', `${review.branch} → ${review.base}`],
    ['head', review.head],
    ['commits', review.commits.length ? review.commits.join('; ') : 'none'],
    ['tests', tests],
    ['reworks', String(review.reworks)],
    ['last review', last],
    ['next', next],
  ])}\n${review.diffStat}\n\n${review.diff}`;
}
