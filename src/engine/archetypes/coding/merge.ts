import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { applyLifecycleInputs, loadTeamLifecycle } from '../../actors/team-lifecycle.js';
import { stateOf } from '../../actors/state-of.js';
import { setTeamStatus } from '../../actors/team-status-command.js';
import { FedError, RefusedError } from '../../../core/errors.js';
import { getTeam } from '../../../core/find-team.js';
import { FED_DIR, federationPaths, worktreeBranch } from '../../../core/layout.js';
import { withLock } from '../../../infra/fs/lock.js';
import { killPoint } from '../../../infra/process/kill-point.js';
import { gitAsync, GitCommandError, gitSucceedsAsync } from '../../registry/git.js';
import { branchExistsAsync, removeWorkspace } from '../../registry/placement.js';
import { snapshotOfMachine } from '../../../../machines/catalog.js';
import { baseBranch, teamBranch } from './branch.js';
import { codingEntry } from './index.js';
import { codingTeam } from './review.js';
import type { Federation } from '../../context.js';

export interface MergeResult {
  team: string;
  branch: string;
  base: string;
  /** The merge commit on the base branch. */
  commit: string;
  state: string;
  /**
   * Nothing was left to do: an earlier run merged the team and cleaned up — a second merge of one team,
   * say, that waited for the first. A caller that records what a person did records no second merge.
   */
  alreadyMerged: boolean;
}

/**
 * `fed team merge <team>`: merge an approved coding team's branch into the base branch (the one checked
 * out in the federation root), then clean up. Refuses, changing nothing, when the team is not approved,
 * its branch moved since the approval or has nothing to merge, the main checkout has uncommitted changes
 * to tracked files, or the merge conflicts (the merge is aborted and the conflicting files named). Each
 * step is a lifecycle event: PR_MERGED (pr-approved → merged), then CLEANUP_DONE (merged → complete); the
 * team is archived and its checkout and branch removed last, keeping its records (they live in the
 * worktree's `.fed/`). A merge interrupted after PR_MERGED — even during its cleanup — is finished by
 * running the command again, which does what it still owes — and so is one whose git failed outside the
 * merge itself (killed, say): that is MERGE_INTERRUPTED, naming the git command and the checkout.
 */
export async function mergeTeam(fed: Federation, name: string): Promise<MergeResult> {
  try {
    // One merge at a time in the main checkout — two `fed team merge`, or two of a dashboard's cards — as
    // its gits run beside the event loop: one merge's `rev-parse HEAD` must not read the other's commit,
    // nor its abort undo the other's merge. A waiting merge waits out a long one (a large codebase).
    return await withLock(federationPaths(fed.root).mergeLock, () => mergeSteps(fed, name), {
      timeoutMs: MERGE_WAIT_MS,
    });
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new FedError(
      'MERGE_INTERRUPTED',
      `the merge of team "${name}" stopped in ${fed.root}: ${error.message}; what it did so far is kept — once git works there again, run it again: fed team merge ${name} (it finishes the merge, never merging twice)`,
      { refusal: false, cause: error },
    );
  }
}

/** How long a merge waits for another one in the same checkout before it gives up, naming it. */
const MERGE_WAIT_MS = 10 * 60_000;

async function mergeSteps(fed: Federation, name: string): Promise<MergeResult> {
  const { root } = fed;
  // A cleanup killed after it moved the team's records aside: they go back first, the lifecycle is in them
  // (and when it was killed after removing the checkout, they are all that is left of the workspace).
  restoreRecordsOf(root, getTeam(await fed.backend.registry.read(), name).location);
  const team = await codingTeam(fed, name);
  const { lifecycles } = fed.backend;
  const lifecycleOf = async () => snapshotOfMachine(codingEntry, (await loadTeamLifecycle(team, lifecycles)).snapshot);
  const state = stateOf(await lifecycleOf());
  if (state !== 'pr-approved' && state !== 'merged' && state !== 'complete') {
    throw new RefusedError(
      'NOT_APPROVED',
      `team "${team.domainId}" is ${state}; only an approved change is merged — review it first: fed team review ${team.domainId} --approve`,
    );
  }
  // Once merged, the branch may be gone already: only the cleanup the merge still owes is left.
  const { branch, base } =
    state === 'pr-approved' ? teamBranch(root, team) : { branch: worktreeBranch(team.domain), base: baseBranch(root) };
  const alreadyMerged =
    state === 'complete' && team.status === 'archived' && !(await checkoutLeft(root, team.location, branch));
  if (state === 'pr-approved') {
    // Porcelain lines start with significant spaces (` M file`): read raw, not trimmed. This git, the merge
    // and the checkout's removal take seconds in a large codebase: all run beside the event loop of the
    // dashboard or MCP server that asked for the merge.
    const dirty = (await gitAsync(root, ['status', '--porcelain', '--untracked-files=no'], { raw: true }))
      .split('\n')
      .filter(Boolean);
    if (dirty.length) {
      throw new RefusedError(
        'DIRTY_CHECKOUT',
        `the main checkout ${root} has uncommitted changes (${dirty.map((l) => l.slice(3)).join(', ')}); commit or stash them, then merge again`,
      );
    }
    const approved = await approvedHead(
      root,
      team.domainId,
      branch,
      base,
      (await lifecycleOf()).context.approvedCommit,
    );
    // A merge killed before it recorded PR_MERGED left its merge commit on the base: that one is recorded.
    if (!(await mergedBefore(root, approved))) await mergeBranch(root, branch, approved, base, team.domainId);
    killPoint(fed.env, 'merge:merged');
    const mergeCommit = await gitAsync(root, ['rev-parse', 'HEAD']);
    await applyLifecycleInputs(fed, team, [{ source: 'event', event: { type: 'PR_MERGED', commit: mergeCommit } }]);
    killPoint(fed.env, 'merge:pr-merged');
  }
  const commit = (await lifecycleOf()).context.mergeCommit;
  // PR_MERGED records it, and it is the only way into `merged`.
  if (commit === null) throw new Error(`team "${team.domainId}" is merged, but its lifecycle records no merge commit`);
  // Each step is skipped when a killed run of this command did it already.
  if (stateOf(await lifecycleOf()) === 'merged')
    await applyLifecycleInputs(fed, team, [{ source: 'event', event: { type: 'CLEANUP_DONE' } }]);
  killPoint(fed.env, 'merge:cleanup-done');
  if (team.status !== 'archived') await setTeamStatus(fed, team.domainId, { type: 'ARCHIVE' });
  killPoint(fed.env, 'merge:archived');
  await removeCheckout(root, team.location, branch, fed.env);
  return { team: team.domainId, branch, base, commit, state: stateOf(await lifecycleOf()), alreadyMerged };
}

/** What the cleanup removes that is still there: the team's checkout (its `.git` link) or its branch. */
async function checkoutLeft(root: string, location: string, branch: string): Promise<boolean> {
  return existsSync(join(location, '.git')) || (await branchExistsAsync(root, branch));
}

/** Where the team's records wait while git removes its worktree. */
const recordsAside = (location: string) => join(dirname(location), `.${basename(location)}.records`);

/** The points `fed team merge` can be killed at in crash tests (see killPoint), in the order it passes them. */
export const MERGE_KILL_POINTS = [
  'merge:merged',
  'merge:pr-merged',
  'merge:cleanup-done',
  'merge:archived',
  'merge:records-aside',
  'merge:checkout-removed',
] as const;

/** restoreRecords, for a registry location not checked yet: only one in the federation's worktrees folder. */
function restoreRecordsOf(root: string, location: string): void {
  const worktrees = federationPaths(root).worktrees;
  if (dirname(resolve(location)) === worktrees) restoreRecords(location);
}

/** Put records left aside by a killed cleanup back where they belong. */
function restoreRecords(location: string): void {
  const aside = recordsAside(location);
  if (!existsSync(aside) || existsSync(join(location, FED_DIR))) return;
  mkdirSync(location, { recursive: true });
  renameSync(aside, join(location, FED_DIR));
}

/**
 * Remove the team's worktree checkout and its branch, keeping the team's records (`.fed/`: lifecycle,
 * signals, runs, agent log) where they were, so `fed team show` and `fed monitor` still tell its story.
 * The records are moved aside (same filesystem, one rename) while git removes the worktree.
 */
async function removeCheckout(root: string, location: string, branch: string, env: NodeJS.ProcessEnv): Promise<void> {
  const records = join(location, FED_DIR);
  if (existsSync(records)) renameSync(records, recordsAside(location));
  killPoint(env, 'merge:records-aside');
  await removeWorkspace(root, { location, placementType: 'worktree', branch });
  killPoint(env, 'merge:checkout-removed');
  restoreRecords(location);
}

/**
 * The commit the approval was for, which is what gets merged: refused when the branch moved since (the new
 * commits were never reviewed), the approval pinned no commit (an older fed approved it), or it has no
 * commit the base lacks (reset to the base or already merged: a merge would drop the approved change and
 * still clean up the team).
 */
async function approvedHead(
  root: string,
  team: string,
  branch: string,
  base: string,
  approved: string | null,
): Promise<string> {
  const current = await gitAsync(root, ['rev-parse', `refs/heads/${branch}`]);
  const again = `review it again: fed team review ${team}, then --approve (or --request-changes "<what>")`;
  if (approved === null) {
    throw new RefusedError(
      'BRANCH_MOVED',
      `team "${team}" was approved by an older fed that did not record which commit of ${branch} it approved (now at ${current}); ${again}`,
    );
  }
  if (approved !== current) {
    throw new RefusedError(
      'BRANCH_MOVED',
      `${branch} moved since it was approved: approved at ${approved}, now at ${current}; nothing was merged — ${again}`,
    );
  }
  if (
    (await gitAsync(root, ['rev-list', '--count', `${base}..${approved}`])) === '0' &&
    !(await mergedBefore(root, approved))
  ) {
    throw new RefusedError(
      'NOTHING_TO_MERGE',
      `${branch} has no commits that are not on ${base} (at ${approved}): nothing to merge, and nothing was merged or cleaned up — its change was reset away or is already on ${base}; check the team's worktree, or request the change again: fed team review ${team} --request-changes "<what>"`,
    );
  }
  return approved;
}

/** Whether the base is at a merge of the approved commit: this command's own, interrupted before it was recorded. */
async function mergedBefore(root: string, approved: string): Promise<boolean> {
  return (
    (await gitSucceedsAsync(root, ['rev-parse', '--verify', '--quiet', 'HEAD^2'])) &&
    (await gitAsync(root, ['rev-parse', 'HEAD^2'])) === approved
  );
}

/** Merge the approved commit, not the branch name: a commit that lands on the branch meanwhile stays out. */
async function mergeBranch(root: string, branch: string, approved: string, base: string, team: string): Promise<void> {
  try {
    await gitAsync(root, [
      'merge',
      '--no-ff',
      '--no-edit',
      '-m',
      `Merge ${branch} (fed team ${team}) into ${base}`,
      approved,
    ]);
  } catch (error) {
    const merging = () => gitSucceedsAsync(root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD']);
    if (error instanceof GitCommandError && error.killedBy) {
      // A merge git was killed in: whatever it began is undone (the checkout was clean), and the re-run merges.
      if (await merging()) await gitSucceedsAsync(root, ['merge', '--abort']);
      throw error;
    }
    await refuseIfIndexLocked(root);
    const conflicts = (await merging()) ? await gitAsync(root, ['diff', '--name-only', '--diff-filter=U']) : '';
    if (conflicts) await gitSucceedsAsync(root, ['merge', '--abort']);
    const what = conflicts
      ? `it conflicts with ${base} in ${conflicts.split('\n').join(', ')}`
      : (error as Error).message;
    throw new RefusedError(
      'MERGE_FAILED',
      `could not merge ${branch} into ${base}: ${what}; nothing was merged — merge ${base} into ${branch} in the team's worktree and resolve the conflicts there (or by a relaunch of the team), then merge again`,
    );
  }
}

/**
 * A git killed mid-command (or one still running) leaves the index locked: every merge fails on it until
 * it is gone, which is no conflict to resolve in the team's worktree — the lock file is named instead.
 */
async function refuseIfIndexLocked(root: string): Promise<void> {
  const lock = resolve(root, await gitAsync(root, ['rev-parse', '--git-path', 'index.lock']));
  if (!existsSync(lock)) return;
  throw new RefusedError(
    'INDEX_LOCKED',
    `could not merge: git's index is locked by ${lock}; nothing was merged — if no git is running in ${root} (one killed midway leaves it behind), remove that file, then merge again`,
  );
}
