import { existsSync } from 'node:fs';
import { worktreeBranch } from '../../core/layout.js';
import { basename, dirname, resolve } from 'node:path';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { git } from '../../engine/registry/git.js';
import { CoalesceByKey } from '../../infra/watch/coalesce-by-key.js';
import { SharedDirectoryWatchers } from '../../infra/watch/shared-directory-watchers.js';
import { watchFolder } from '../../infra/watch/watch-folder.js';
import { keepTeamCommit } from './team-commit.js';
import { KEEP_AFTER_CHANGE_MS } from './watch-team-files.js';

/**
 * Record a worktree team's branch head as its agent commits, while its launch runs (fed serve on a
 * federation shared across machines), and with `serve.pushTeamBranches` push it: a host lost mid-launch
 * leaves the commits made up to then to the move, not only those of its last finished launch. The
 * branch's ref file is watched — git replaces it at each commit — so nothing runs while the agent does
 * not commit, and a burst of commits is recorded once per `KEEP_AFTER_CHANGE_MS`, one recording at a
 * time. `stop` ends the watch and waits for a recording under way (the launch's end records the last).
 * Nothing for another team, or on a backend of one machine.
 */
export function watchTeamCommit(
  fed: Federation,
  team: RegistryEntry,
  onWarning: (text: string) => void,
): { stop(): Promise<void> } {
  // Nor for a worktree that is not on this host (a team placed elsewhere, whose launch here is refused).
  if (!fed.backend.hosts || team.placementType !== 'worktree' || !existsSync(team.location))
    return { stop: async () => undefined };
  const branch = worktreeBranch(team.domain);
  // In the clone's common folder: every worktree's branches are there.
  let ref: string;
  try {
    ref = resolve(team.location, git(team.location, ['rev-parse', '--git-path', `refs/heads/${branch}`]));
  } catch (error) {
    onWarning(`its commits are recorded only when its launch ends: ${(error as Error).message}`);
    return { stop: async () => undefined };
  }
  let recording: Promise<void> = Promise.resolve();
  const changed = new CoalesceByKey<string>(KEEP_AFTER_CHANGE_MS, () => {
    recording = recording
      .then(() => keepTeamCommit(fed, team))
      .then(
        (warnings) => warnings.forEach(onWarning),
        (error: unknown) => onWarning(`the commit it worked on was not recorded: ${(error as Error).message}`),
      );
  });
  const stopWatch = watchFolder(new SharedDirectoryWatchers(), dirname(ref), {
    onChange: (entry) => {
      if (entry === null || entry === basename(ref)) changed.push(ref, ref);
    },
    onError: (error) => onWarning(`its commits are recorded only when its launch ends: ${error.message}`),
  });
  return {
    async stop() {
      stopWatch();
      changed.clear();
      await recording;
    },
  };
}
