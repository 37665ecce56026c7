import { TeamInboxConsumer } from '../../engine/actors/consume-inbox.js';
import { archetypeOf } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import { workspacePaths } from '../../core/layout.js';
import { unlinkQuietly } from '../../infra/fs/atomic-write.js';
import { teamNeedsYou } from '../needs-you/team-items.js';
import { notifyNeedsYou } from '../needs-you/notify-needs-you.js';
import { superviseWithFixes } from './fix-attempts.js';
import type { Launch } from './launch.js';
import type { LaunchOptions } from './launch-options.js';
import { LaunchPhases } from './launch-phases.js';
import { LaunchWatch } from './launch-watch.js';
import { refuseOverBudget } from './prepare/federation-budget.js';
import { acquireLeases, waitForConsumer } from './prepare/launch-leases.js';
import { stopOrphanedRun } from './prepare/orphan-agent.js';
import { prepareRun, type PreparedRun } from './prepare/prepare-run.js';
import { refuseSandboxSettings, refuseUnlaunchable, refuseWithoutWork } from './prepare/refusals.js';
import { recordRunStarted, startAgent } from './supervise/start-agent.js';
import type { EndedRun } from './supervise/supervise-agent.js';
import { pauseForAccountLimit } from './judge/account-pause.js';
import { decideOutcome } from './judge/launch-outcome.js';
import { recordAccountPause, recordLaunch } from './record/launch-record.js';
import { teamLaunchOptions } from './team-agent.js';

/**
 * `fed launch`: run a team's agent in its workspace, supervised by its lifecycle (spec §4.4).
 *
 * Refuses paused, archived, finished and mission-less teams, and a team already running (its lease); an
 * agent left running by a launcher that died is stopped first (at most one agent per team). Applies
 * pending inbox signals, then starts the agent through its preset (argument array, workspace as cwd,
 * `fed` on its PATH, FED_ROOT / FED_TEAM / FED_LAUNCH_PROMPT / FED_LAUNCH_CONTEXT in its environment;
 * a deliverable team's in the read-only sandbox when bwrap is there), resuming the last session by id.
 * While it runs: the inbox is consumed, its event stream read, limits enforced; a pause stops it. When it
 * exits the run gets an honest outcome: complete → report to meta; a transient outcome (or a crash after
 * progress) pauses the team and alerts meta; otherwise the team fails with the reason and meta is alerted.
 */
export async function launchTeam(fed: Federation, teamName: string, options: LaunchOptions): Promise<LaunchResult> {
  const phases = new LaunchPhases(options.onPhase);
  // The launcher applies its agent's events, and sends their reports, for as long as the agent runs.
  fed.watchRegistry();
  let result: LaunchResult;
  try {
    result = await runLaunch(fed, teamName, options, phases);
  } catch (error) {
    phases.ended(error);
    throw error;
  }
  // The team may now wait on a person (its review, a pause, a failure): they are told, once.
  const told = await notifyNeedsYou(fed, async () => teamNeedsYou(fed, await fed.team(result.team)), {
    hooks: options.hooks,
    signal: options.signal,
  });
  result.warnings.push(...told.warnings);
  return result;
}

/** What the run's sandbox owes once its agent is gone (TeamSandbox.afterRun), a failure of it said, never thrown over the run's. */
async function afterSandbox(prepared: PreparedRun): Promise<string[]> {
  if (!prepared.sandbox) return [];
  return prepared.sandbox
    .afterRun()
    .catch((error: unknown) => [`after the sandboxed run: ${(error as Error).message}`]);
}

/**
 * The launch, phase by phase as machines/launch.machine.ts has them, each step moving its sequence
 * (`phases`): this is the one place that calls into every phase — prepare/, supervise/, judge/, record/,
 * in that order — handing each the Launch and what the phase before made.
 */
async function runLaunch(
  fed: Federation,
  teamName: string,
  callerOptions: LaunchOptions,
  phases: LaunchPhases,
): Promise<LaunchResult> {
  const { root, backend } = fed;
  const started = Date.now();
  const team = await fed.team(teamName);
  // The one place a launch's agent is chosen: the team's own (agent.teams.<id>) over the federation's.
  const options = teamLaunchOptions(callerOptions, team.domainId);
  // A team paused now may be the one the caller resumes once it holds the lease (whenLeased).
  if (!options.whenLeased) refuseUnlaunchable(team);
  await refuseOverBudget(fed, options.config);
  const archetype = archetypeOf(team);
  refuseSandboxSettings(root, team, options);
  const leases = await acquireLeases(team);
  // Archived meanwhile: `fed team archive` holds this lease while it archives, so the status read now is final.
  await Promise.resolve(options.whenLeased?.())
    .then(() => fed.team(teamName))
    .then(refuseUnlaunchable)
    .catch((error: unknown) => {
      leases.release();
      throw error;
    });
  const warnings: string[] = [];
  const consumer = leases.consumes ? new TeamInboxConsumer(fed, team, { inspect: options.inspect }) : undefined;
  // A lifecycle that cannot be read refuses the launch here: the leases go with it, or the next command
  // (and fed doctor) would find them held by a process that is gone.
  const watch = await LaunchWatch.open(team, backend, consumer, options, warnings).catch((error: unknown) => {
    leases.release();
    throw error;
  });
  const launch: Launch = { fed, root, team, archetype, options, backend, watch, phases, warnings, started };
  try {
    await stopOrphanedRun(launch);
    if (!consumer) await waitForConsumer(backend, team);
    const ready = refuseWithoutWork(launch, await watch.catchUp());
    phases.step({ type: 'CHECKED' });
    const prepared = await prepareRun(launch, ready);
    if (prepared.accountLimit) {
      // No agent runs: the places its sandbox held go again.
      warnings.push(...(await afterSandbox(prepared)));
      const paused = await pauseForAccountLimit(launch, prepared.accountLimit);
      phases.step({ type: 'JUDGED', outcome: 'paused' });
      const result = await recordAccountPause(launch, prepared, prepared.accountLimit, paused);
      phases.step({ type: 'RECORDED' });
      return result;
    }
    let agent = await startAgent(launch, prepared).catch(async (error: unknown) => {
      warnings.push(...(await afterSandbox(prepared)));
      throw error;
    });
    let ended: EndedRun;
    try {
      phases.step({ type: 'AGENT_STARTED' });
      await recordRunStarted(launch, prepared, agent);
      ended = await superviseWithFixes(launch, prepared, agent, (next) => (agent = next));
    } finally {
      // Whatever went wrong, no agent is left running unsupervised: it lives no longer than its supervision.
      await agent.stopAndClose();
      // Then what its sandbox owes: a coding team's commits brought into the repository, before anyone reviews.
      warnings.push(...(await afterSandbox(prepared)));
    }
    phases.step({ type: 'AGENT_EXITED' });
    const decision = await decideOutcome(launch, prepared, ended);
    phases.step({ type: 'JUDGED', outcome: decision.outcome });
    const result = await recordLaunch(launch, prepared, ended, decision);
    phases.step({ type: 'RECORDED' });
    return result;
  } catch (error) {
    watch.trace?.abandon(error);
    throw error;
  } finally {
    unlinkQuietly(workspacePaths(team.location).launchBaseline);
    leases.release();
  }
}
