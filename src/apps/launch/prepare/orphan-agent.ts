import { setTimeout as sleep } from 'node:timers/promises';
import { processIsAlive, processStartTime } from '../../../infra/fs/process-identity.js';
import { descendantsOf } from '../../../infra/process/process-tree.js';
import { stateOf } from '../../../engine/actors/state-of.js';
import { loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import type { Launch } from '../launch.js';
import { finishCompletedRun, orphanRunRecord } from './finish-orphaned-run.js';
import { readCurrentRun, recordRun } from '../run-records.js';

/**
 * Stop an agent left behind by a launcher that died (its process group: the agent's supervisor and
 * everything it started): SIGTERM, then SIGKILL after the grace period. Its sandbox runs in a session of
 * its own: it is stopped by the supervisor, or killed here with everything else that descends from it.
 * Returns whether it was running. A run recorded without its start time (a platform that could not tell
 * it) is never signalled: its pid may since be another process's, and its group with it.
 */
export async function stopOrphanGroup(pid: number, start: string | null, graceMs: number): Promise<boolean> {
  // Pid 1 is the init of this pid namespace, never an agent's supervisor fed started: to kill(2) its group
  // -1 means every process there is, and its descendants are all of them.
  if (pid === 1 || start === null || !processIsAlive(pid, start)) return false;
  const descendants = descendantsOf(pid).map((member) => ({ pid: member, start: processStartTime(member) }));
  const signal = (target: number, name: NodeJS.Signals) => {
    try {
      process.kill(target, name);
    } catch {
      // gone already
    }
  };
  signal(-pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processIsAlive(pid, start)) await sleep(50);
  signal(-pid, 'SIGKILL');
  while (processIsAlive(pid, start)) await sleep(20);
  const left = () => descendants.filter((member) => processIsAlive(member.pid, member.start));
  for (const member of left()) signal(member.pid, 'SIGKILL');
  while (left().length) await sleep(20);
  return true;
}

/**
 * At most one agent per team: a run still recorded as in progress belongs to a launcher that died. Its
 * agent is stopped if it still runs (the watchdog normally does that itself). A run whose work was done
 * is finished as the launcher would have (finishCompletedRun: the report to meta, once); any other is
 * recorded as interrupted — with its session id, so this launch resumes it.
 */
export async function stopOrphanedRun(launch: Launch): Promise<void> {
  const { fed, team, warnings } = launch;
  const orphan = readCurrentRun(team.location);
  if (!orphan) return;
  const stopped = await stopOrphanGroup(orphan.pid, orphan.processStart, launch.options.graceMs ?? 5_000);
  if (stopped)
    warnings.push(
      `stopped the agent of an earlier launch (pid ${orphan.pid}) whose launcher (pid ${orphan.launcherPid}) died`,
    );
  if (await finishCompletedRun(fed, team, orphan)) return;
  const state = stateOf((await loadTeamLifecycle(team, fed.backend.lifecycles)).snapshot);
  recordRun(
    fed,
    team,
    orphanRunRecord(orphan, team.location, {
      outcome: 'interrupted',
      reason: `its launcher (pid ${orphan.launcherPid}) ended without recording the run (it died or failed)${stopped ? '; the agent was still running and was stopped by the next launch' : ''}`,
      stateAfter: state,
      // Stopped just now: it ran until then.
      ...(stopped ? { at: new Date().toISOString() } : {}),
    }),
  );
}
