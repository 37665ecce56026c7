import { getTeam } from '../../core/find-team.js';
import { worktreeBranch } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { readCodebase, REMOTE_TIMEOUT_MS } from '../../engine/registry/codebase.js';
import { GitCommandError, gitRemote } from '../../engine/registry/git.js';
import { updateRegistry } from '../../engine/registry/update-registry.js';

/**
 * As a worktree team's agent commits and after its launch (keep-team-while-launching.ts): the head of its
 * branch recorded as the commit it worked on (registry `codebase.commit`, one compare-and-swap when it
 * moved), so a move of the team makes its workspace there on another host. With `serve.pushTeamBranches` the branch is pushed to the codebase's
 * remote first, so that host can fetch it; otherwise the team's commits stay in this clone until a person
 * pushes them, and `fed team move` refuses a commit the remote does not have. Returns what went wrong,
 * said as warnings: nothing of it stops the team.
 */
export async function keepTeamCommit(fed: Federation, team: RegistryEntry): Promise<string[]> {
  if (team.placementType !== 'worktree') return [];
  const here = readCodebase(team.location);
  if (!here) return [];
  // The remote recorded at onboarding is the one the team's commits go to; a team onboarded before fed
  // recorded codebases gets its worktree's.
  const remote = team.codebase?.remote ?? here.remote;
  const warnings: string[] = [];
  if (fed.config.serve?.pushTeamBranches) {
    const branch = worktreeBranch(team.domain);
    if (remote === undefined)
      warnings.push(`its branch ${branch} was not pushed: its codebase has no remote (serve.pushTeamBranches)`);
    else
      try {
        await gitRemote(
          team.location,
          ['push', '--quiet', '--', remote, `refs/heads/${branch}:refs/heads/${branch}`],
          REMOTE_TIMEOUT_MS,
        );
      } catch (error) {
        if (!(error instanceof GitCommandError)) throw error;
        warnings.push(`its branch ${branch} was not pushed to ${remote}: ${error.stderr || error.message}`);
      }
  }
  if (here.commit === team.codebase?.commit && remote === team.codebase?.remote) return warnings;
  await updateRegistry(fed, (registry) => {
    const entry = getTeam(registry, team.domainId);
    // Moved meanwhile (or made anew): its commit is the new workspace's to record.
    if (entry.location !== team.location || entry.host !== team.host) return undefined;
    // Recorded already (by a recording while the launch ran).
    if (entry.codebase?.commit === here.commit && entry.codebase.remote === remote) return undefined;
    entry.codebase = { ...entry.codebase, commit: here.commit, ...(remote === undefined ? {} : { remote }) };
    return registry;
  });
  return warnings;
}
