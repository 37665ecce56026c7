import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { keepTeamCommit } from './team-commit.js';
import { watchTeamCommit } from './watch-team-commit.js';
import { watchTeamFiles } from './watch-team-files.js';

/**
 * Run a launch of `team` (`launch`) with what a move of the team to another host needs kept as it goes:
 * on a federation shared across machines its own files copied to the backend's store as they change and
 * when the launch ends (watch-team-files.ts), and a worktree team's commits recorded — pushed too with
 * `serve.pushTeamBranches` — as its agent makes them (watch-team-commit.ts); then, on any backend, a
 * worktree team's branch head recorded as the commit it worked on (team-commit.ts). `fed serve` and a
 * person's `fed launch` both launch through it, so a team launched by hand moves as whole as one the
 * server launched. What could not be kept is told to `onWarning`: nothing of it stops the team. A launch
 * that throws is rethrown, its watches stopped.
 */
export async function keepTeamWhileLaunching<T>(
  fed: Federation,
  team: RegistryEntry,
  onWarning: (text: string) => void,
  launch: () => Promise<T>,
): Promise<T> {
  const notKept = (error: unknown) =>
    onWarning(`its files were not copied to ${fed.backend.teamFiles?.location}: ${(error as Error).message}`);
  const keeping = watchTeamFiles(fed, team, notKept);
  const committing = watchTeamCommit(fed, team, onWarning);
  let result: T;
  try {
    result = await launch();
  } finally {
    await keeping.stop().catch(notKept);
    await committing.stop();
  }
  const kept = await keepTeamCommit(fed, team).catch((error: unknown) => [
    `the commit it worked on was not recorded: ${(error as Error).message}`,
  ]);
  kept.forEach(onWarning);
  return result;
}
