import type { AnyMachineSnapshot } from 'xstate';
import { snapshotOfMachine } from '../../../../machines/catalog.js';
import type { CodingContext } from '../../../../machines/coding.types.js';
import { applyLifecycleInputs, loadTeamLifecycle } from '../../actors/team-lifecycle.js';
import { stateOf } from '../../actors/state-of.js';
import { RefusedError } from '../../../core/errors.js';
import { git, gitAsync } from '../../registry/git.js';
import { bringInTeamBranch } from '../../registry/team-git-store.js';
import { META } from '../../../core/schema/common.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { sendSignal } from '../../messaging/send-signal.js';
import { archetypeOf } from '../catalog.js';
import { teamBranch } from './branch.js';
import { codingArchetype, codingEntry } from './index.js';
import type { Federation } from '../../context.js';

/** What `fed team review <team>` shows meta: the change on the team branch, and what the team reported. */
export interface Review {
  team: string;
  state: string;
  branch: string;
  base: string;
  /** The commit the branch is at: what an approval now approves. */
  head: string;
  /** The team's commits not on the base branch, newest first (`<sha> <subject>`). */
  commits: string[];
  /** `git diff --stat` and the whole diff of the branch against where it forked from the base. */
  diffStat: string;
  diff: string;
  tasks: string[];
  /** The last test run the team reported (TESTS_COMPLETE). */
  lastTestRun: { passed: number; failed: number } | null;
  reworks: number;
  lastReview: CodingContext['lastReview'];
  /** What its sandboxed agent committed and fed could not bring onto the branch (bringInTeamBranch): not shown above. */
  warnings: string[];
}

/** A coding team by name, refused for any other archetype. */
export async function codingTeam(fed: Federation, name: string): Promise<RegistryEntry> {
  const team = await fed.team(name);
  if (archetypeOf(team) !== codingArchetype) {
    throw new RefusedError(
      'NOT_A_CODING_TEAM',
      `team "${team.domainId}" is a ${team.archetypeId} team; review and merge are for coding teams`,
    );
  }
  return team;
}

export async function reviewTeam(fed: Federation, name: string): Promise<Review> {
  const { root } = fed;
  const team = await codingTeam(fed, name);
  // What its sandboxed agent committed, brought into the repository first (its launcher may be gone).
  const warning = await bringInTeamBranch(root, team);
  const { branch, base } = teamBranch(root, team);
  const { snapshot } = await loadTeamLifecycle(team, fed.backend.lifecycles);
  const { context } = snapshotOfMachine(codingEntry, snapshot);
  // The branch's commit first, then everything of that commit: a commit landing meanwhile cannot make the
  // log and the diff describe another than the head shown. Side by side, and beside the caller's event
  // loop: the MCP server and the dashboard go on serving while git diffs a large change.
  const head = await gitAsync(root, ['rev-parse', `refs/heads/${branch}`]);
  // Three dots: what the branch changed since it forked, not what the base gained meanwhile.
  const range = `${base}...${head}`;
  const [log, diffStat, diff] = await Promise.all([
    gitAsync(root, ['log', '--format=%h %s', `${base}..${head}`]),
    gitAsync(root, ['diff', '--stat', range], { raw: true }),
    gitAsync(root, ['diff', range], { raw: true }),
  ]);
  return {
    team: team.domainId,
    state: stateOf(snapshot),
    branch,
    base,
    head,
    commits: log ? log.split('\n') : [],
    diffStat: diffStat.trimEnd(),
    diff,
    tasks: context.tasks,
    lastTestRun: context.lastTestRun,
    reworks: context.reworks,
    lastReview: context.lastReview,
    warnings: warning ? [warning] : [],
  };
}

export type Verdict = { approve: true } | { approve: false; changes: string };

/**
 * Meta's verdict on a branch in review: PR_APPROVED (pr-review → pr-approved) of the commit the branch is
 * at now — `fed team merge` merges that commit and refuses a branch that moved since — or CHANGES_REQUESTED
 * (pr-review → implementing) plus a directive to the team with what to change, which its next launch
 * reads from its inbox. An approved team is reviewed again the same way (its branch moved since).
 * Refused, changing nothing, unless the team is in review or approved.
 */
export async function decideReview(
  fed: Federation,
  name: string,
  verdict: Verdict,
): Promise<{ team: string; state: string; warnings: string[] }> {
  const team = await codingTeam(fed, name);
  const warning = await bringInTeamBranch(fed.root, team);
  // Only a change that is there to review can be decided on (refused by name otherwise).
  const { branch } = teamBranch(fed.root, team);
  refuseUnlessInReview(team, (await loadTeamLifecycle(team, fed.backend.lifecycles)).snapshot);
  const event = verdict.approve
    ? { type: 'PR_APPROVED', reviewer: META, commit: git(fed.root, ['rev-parse', `refs/heads/${branch}`]) }
    : { type: 'CHANGES_REQUESTED', reviewer: META, comments: [verdict.changes] };
  const result = await applyLifecycleInputs(fed, team, [{ source: 'event', event }]);
  if (!verdict.approve) {
    await sendSignal(fed, {
      from: META,
      to: team.domainId,
      type: 'directive',
      subject: 'changes requested in review',
      body: verdict.changes,
    });
  }
  return { team: team.domainId, state: result.state, warnings: warning ? [warning] : [] };
}

function refuseUnlessInReview(team: RegistryEntry, snapshot: AnyMachineSnapshot): void {
  const state = stateOf(snapshot);
  if (state !== 'pr-review' && state !== 'pr-approved') {
    throw new RefusedError(
      'NOT_IN_REVIEW',
      `team "${team.domainId}" is ${state}, not in review; a coding team asks for review (REVIEW_REQUESTED) once its tests pass — see fed team review ${team.domainId}`,
    );
  }
}
