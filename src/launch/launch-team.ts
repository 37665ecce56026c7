import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InspectionEvent } from 'xstate';
import { TeamInboxConsumer } from '../actors/consume-inbox.js';
import { acquireTeamLease, tryAcquireTeamLease } from '../actors/team-lease.js';
import { readJournalTail } from '../actors/state-files.js';
import { applyLifecycleInputs, lifecycleEntryFor, loadTeamLifecycle, stateOf } from '../actors/team-lifecycle.js';
import { setTeamStatus } from '../actors/team-status-command.js';
import { RefusedError } from '../errors.js';
import { unlinkQuietly } from '../fs/atomic-write.js';
import type { LaunchResult } from '../hooks/federation-hooks.js';
import type { LoadedHooks } from '../hooks/load-hooks.js';
import { notifySignals, notifyTransitions } from '../hooks/notify-hooks.js';
import { workspacePaths } from '../layout.js';
import { statusOf } from '../registry/find-team.js';
import { resolveTeam } from '../registry/team-workspace.js';
import { META } from '../schema/common.js';
import type { FederationConfig } from '../schema/config.js';
import type { JournalLine } from '../schema/lifecycle-state.js';
import type { LaunchContext } from '../schema/launch-context.js';
import type { RegistryEntry } from '../schema/registry.js';
import { SignalBoxReader } from '../signals/read-signals.js';
import { sendSignal } from '../signals/send-signal.js';
import { AgentProcess } from './agent-process.js';
import { captureCodebase, codebaseChanges, describeCodebaseChanges } from './codebase-guard.js';
import { writeCommandShims } from './command-shims.js';
import { writeBaseline, writeLaunchFiles } from './launch-files.js';
import { playbookSkillPath } from './launch-prompt.js';
import { splitCommand } from './split-command.js';

export interface LaunchOptions {
  config: FederationConfig;
  /** `--agent`: overrides `agentCommand`. */
  agent?: string;
  /** `--timeout`: stop a hung agent after this long and fail the team. */
  timeoutSeconds?: number;
  /** Interrupts the launch (Ctrl-C): the agent is stopped and the team paused, to be resumed later. */
  signal?: AbortSignal;
  /** Told about every lifecycle journal line as it happens (transitions and recorded events). */
  onProgress?: (line: JournalLine) => void;
  hooks?: LoadedHooks;
  inspect?: (event: InspectionEvent) => void;
  /** Base environment of the agent (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How often the inbox and lifecycle are checked while the agent runs (default 200 ms). */
  pollMs?: number;
  /** How long a stopped agent gets to exit before SIGKILL (default 5 s). */
  graceMs?: number;
}

function refuseUnlaunchable(team: RegistryEntry): void {
  const status = statusOf(team);
  if (status === 'paused') throw new RefusedError('TEAM_PAUSED', `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`);
  if (status === 'archived') throw new RefusedError('TEAM_ARCHIVED', `team "${team.domainId}" is archived; archived teams are not launched`);
  lifecycleEntryFor(team);
}

function launchContext(root: string, team: RegistryEntry, config: FederationConfig, state: string, mission: LaunchContext['mission']): LaunchContext {
  const paths = workspacePaths(team.location);
  return {
    team: team.domainId,
    archetype: team.archetypeId,
    root,
    workspace: team.location,
    codebase: team.placementType === 'worktree' ? team.location : root,
    mission,
    state,
    deliverable: config.deliverable,
    deliverablePath: join(team.location, config.deliverable),
    playbookSkillPath: playbookSkillPath(root, config),
    learningLogPath: paths.learningLog,
    launchedAt: new Date().toISOString(),
  };
}

/**
 * `fed launch`: run a team's agent in its workspace, supervised by its lifecycle (spec §4.4).
 *
 * Refuses paused, archived, finished and mission-less teams, and a team already running (its lease).
 * Applies pending inbox signals first, then starts the agent (argument array, workspace as cwd, `fed` on
 * its PATH, FED_ROOT / FED_TEAM / FED_LAUNCH_PROMPT / FED_LAUNCH_CONTEXT in its environment, output
 * appended to the agent log) and keeps consuming the inbox while it runs: a pause stops the agent
 * gracefully; a timeout stops it and fails the team. When it exits, a complete lifecycle is reported to
 * meta; anything unfinished fails the team with the reason and raises an alert to meta.
 */
export async function launchTeam(root: string, teamName: string, options: LaunchOptions): Promise<LaunchResult> {
  const started = Date.now();
  const team = resolveTeam(root, teamName);
  refuseUnlaunchable(team);
  const launchLease = await acquireTeamLease(team, 'launch');
  // When `fed actors run` already consumes this team's inbox, it keeps doing so; otherwise the launch does.
  const consumerLease = await tryAcquireTeamLease(team, 'consumer').catch((error: unknown) => {
    launchLease.release();
    throw error;
  });
  const paths = workspacePaths(team.location);
  const warnings: string[] = [];
  const consumer = consumerLease ? new TeamInboxConsumer(root, team, { inspect: options.inspect }) : undefined;
  let lastSeq = loadTeamLifecycle(team).envelope.seq;

  // Everything that happened since the last look: printed, and passed to the hooks.
  const catchUp = async () => {
    if (consumer) {
      const result = await consumer.consume();
      warnings.push(...result.warnings, ...(await notifySignals(options.hooks, result.steps)));
    }
    // The agent's own `fed event`s happen in its process: the journal is where the launcher sees them.
    const lines = readJournalTail(team.location, 200).filter((l) => l.seq > lastSeq);
    lastSeq = lines.at(-1)?.seq ?? lastSeq;
    lines.forEach((line) => options.onProgress?.(line));
    warnings.push(...(await notifyTransitions(options.hooks, team.domainId, lines)));
    return loadTeamLifecycle(team);
  };

  let agent: AgentProcess | undefined;
  try {
    if (!consumer) await waitForConsumer(team);
    let lifecycle = await catchUp();
    const state = stateOf(lifecycle.snapshot);
    if (lifecycle.snapshot.status !== 'active') {
      throw new RefusedError('LIFECYCLE_FINAL', `team "${team.domainId}" is already ${state}; its lifecycle is over — onboard a new team for new work`);
    }
    if (state === 'paused') throw new RefusedError('TEAM_PAUSED', `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`);
    const mission = (lifecycle.snapshot.context as { mission?: LaunchContext['mission'] | null }).mission;
    if (!mission) {
      throw new RefusedError(
        'NO_MISSION',
        `team "${team.domainId}" has no mission yet; send one first: fed signal send --to ${team.domainId} --type directive --subject "<mission>" --body "<details>"`,
      );
    }

    const context = launchContext(root, team, options.config, state, mission);
    // The codebase as seen from the federation root: `.fed/` (and so every team workspace, worktrees
    // included) is left out, so what the team writes in its own workspace is never a modification.
    const baseline = team.archetypeId === 'deliverable' ? captureCodebase(root) : undefined;
    if (baseline) writeBaseline(team.location, baseline);
    const files = writeLaunchFiles(context);
    const baseEnv = options.env ?? process.env;
    agent = await AgentProcess.start({
      command: splitCommand(options.agent ?? options.config.agentCommand, options.agent ? '--agent' : 'agentCommand'),
      cwd: team.location,
      env: {
        ...baseEnv,
        FED_ROOT: root,
        FED_TEAM: team.domainId,
        FED_LAUNCH_PROMPT: files.promptPath,
        FED_LAUNCH_CONTEXT: files.contextPath,
        PATH: [writeCommandShims(paths.launchBin), baseEnv.PATH].filter(Boolean).join(delimiter),
      },
      logFile: paths.agentLog,
      graceMs: options.graceMs,
    });

    // Supervise: keep consuming the inbox; stop the agent on pause, timeout or interruption.
    let stopReason: 'paused' | 'timeout' | 'interrupted' | undefined;
    let exited = false;
    const running = agent;
    void running.exited.then(() => (exited = true));
    const deadline = options.timeoutSeconds ? started + options.timeoutSeconds * 1000 : Number.POSITIVE_INFINITY;
    while (!exited) {
      await Promise.race([running.exited, sleep(options.pollMs ?? 200)]);
      lifecycle = await catchUp();
      if (exited) break;
      if (lifecycle.snapshot.value === 'paused') stopReason = 'paused';
      else if (Date.now() > deadline) stopReason = 'timeout';
      else if (options.signal?.aborted) stopReason = 'interrupted';
      if (stopReason) {
        await running.stop();
        break;
      }
    }
    // An interruption that arrived while the agent was exiting still means "pause", never "failed".
    if (!stopReason && options.signal?.aborted) stopReason = 'interrupted';
    const exit = await running.exited;
    lifecycle = await catchUp();

    if (stopReason === 'interrupted' && lifecycle.snapshot.status === 'active' && lifecycle.snapshot.value !== 'paused') {
      await setTeamStatus(root, team.domainId, { type: 'PAUSE' });
      lifecycle = await catchUp();
    }
    let finalState = stateOf(lifecycle.snapshot);
    let reason: string | null = null;
    let outcome: LaunchResult['outcome'];
    const changes = baseline ? codebaseChanges(baseline, captureCodebase(baseline.codebase)) : [];

    if (finalState === 'paused' || (stopReason === 'paused' && lifecycle.snapshot.status === 'active')) {
      // Stopped because the team was paused: if it was resumed while the agent was stopping, it is simply
      // ready to be launched again — never failed for an exit fed asked for.
      outcome = 'paused';
    } else if (finalState === 'complete' && changes.length === 0) {
      outcome = 'complete';
      await sendSignal(root, { from: team.domainId, to: META, type: 'report', subject: `deliverable ready: ${options.config.deliverable}`, body: await deliverableSummary(context) });
    } else {
      outcome = 'failed';
      if (finalState === 'failed') {
        reason = (lifecycle.snapshot.context as { failure?: { reason: string } | null }).failure?.reason ?? 'failed';
      } else if (finalState === 'complete') {
        // `complete` is final: the modification came after the document was accepted. Say so loudly.
        reason = `${describeCodebaseChanges(changes)} (after the document was written)`;
      } else {
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
        reason = changes.length
          ? describeCodebaseChanges(changes)
          : stopReason === 'timeout'
            ? `agent timed out after ${options.timeoutSeconds} s in state ${finalState}`
            : `agent ${how} in state ${finalState} before the lifecycle was complete`;
        await applyLifecycleInputs(root, team, [{ source: 'event', event: { type: 'FAIL', reason } }], { inspect: options.inspect });
        lifecycle = await catchUp();
        finalState = stateOf(lifecycle.snapshot);
      }
      await sendSignal(root, { from: team.domainId, to: META, type: 'alert', subject: `team ${team.domainId} failed`, body: `${reason}\nAgent log: ${paths.agentLog}` });
    }

    const result: LaunchResult = {
      team: team.domainId,
      state: finalState,
      outcome,
      agentExitCode: exit.code,
      agentSignal: exit.signal,
      reason,
      deliverablePath: context.deliverablePath,
      deliverableExists: existsSync(context.deliverablePath),
      logPath: paths.agentLog,
      durationMs: Date.now() - started,
      warnings,
    };
    pushWarning(warnings, await options.hooks?.notify('onLaunchComplete', result));
    return result;
  } finally {
    // Whatever went wrong, no agent is left running unsupervised once the leases are given up.
    await agent?.stop();
    unlinkQuietly(paths.launchBaseline);
    consumerLease?.release();
    launchLease.release();
  }
}

/**
 * Give the running actor consumer a moment to apply the signals waiting in the inbox (the mission may be
 * among them); after a few seconds the launch goes on with what is applied.
 */
async function waitForConsumer(team: RegistryEntry, limitMs = 5_000): Promise<void> {
  const reader = new SignalBoxReader(workspacePaths(team.location).inbox, { owner: team.domainId, box: 'inbox' });
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const lifecycle = loadTeamLifecycle(team);
    const processed = new Set(lifecycle.envelope.processed);
    const waiting = reader.read().signals.some((s) => !processed.has(s.message.id));
    if (!waiting || lifecycle.snapshot.value === 'paused') return;
    await sleep(100);
  }
}

function pushWarning(warnings: string[], warning: string | undefined): void {
  if (warning) warnings.push(warning);
}

/** The completion report's body: what the deliverable is, from its structural summary. */
async function deliverableSummary(context: LaunchContext): Promise<string> {
  const { checkDeliverable } = await import('../deliverable/check-deliverable.js');
  const { summary } = checkDeliverable(context.deliverablePath);
  const sections = summary.sections.filter((s) => s.level === 2).map((s) => s.title);
  return [
    `Team ${context.team} finished "${context.mission.subject}".`,
    `Deliverable: ${context.deliverablePath}${summary.title ? ` — "${summary.title}"` : ''}`,
    `${summary.size_bytes} bytes, ${summary.word_count} words, ${summary.sections.length} sections, ${summary.code_blocks.length} code blocks, ${summary.diagrams.length} diagrams.`,
    sections.length ? `Sections: ${sections.join(', ')}.` : '',
  ].filter(Boolean).join('\n');
}
