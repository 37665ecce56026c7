import { existsSync, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InspectionEvent } from 'xstate';
import { TeamInboxConsumer } from '../../engine/actors/consume-inbox.js';
import { acquireTeamLease, tryAcquireTeamLease } from '../../engine/actors/team-lease.js';
import { applyLifecycleInputs, awaitsApply, lifecycleEntryFor, loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { archetypeOf } from '../../engine/archetypes/catalog.js';
import { setTeamStatus } from '../../engine/actors/team-status-command.js';
import { RefusedError } from '../../core/errors.js';
import { journalQuietly } from '../../engine/federation/federation-journal.js';
import { AGENT_INSPECTION_ENV, InspectionRelay, inspectionRelayPath } from '../../infra/inspect/agent-inspection.js';
import type { InspectionRecord } from '../../infra/inspect/inspection-log.js';
import { createFileExclusive, unlinkQuietly } from '../../infra/fs/atomic-write.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import { notifySignals, notifyTransitions } from '../../engine/hooks/notify-hooks.js';
import { workspacePaths } from '../../core/layout.js';
import { statusOf } from '../../core/find-team.js';
import { resolveTeam } from '../../adapters/file/team-workspace.js';
import { META } from '../../core/schema/common.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { LaunchContext } from '../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import { openBackend } from '../../adapters/open-backend.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { DEFAULT_AGENT_COMMAND, type AgentLimits } from '../../core/schema/config.js';
import type { CurrentRun, LaunchRun } from '../../core/schema/launch-run.js';
import { agentCommand, type AgentCommandOptions } from './agent-command.js';
import { AgentProcess } from './agent-process.js';
import { captureCodebase, codebaseChanges, describeCodebaseChanges, recaptureCodebase } from '../../engine/deliverable/codebase-guard.js';
import { writeCommandShims } from './command-shims.js';
import { writeBaseline, writeLaunchFiles } from './launch-files.js';
import { playbookSkillFile } from '../../infra/config/referenced-files.js';
import { playbookSkillPath } from './launch-prompt.js';
import { stopOrphanGroup } from './orphan-agent.js';
import type { AgentPreset, StreamStats } from './presets/agent-preset.js';
import { pausesTeam, runOutcome, type StopReason } from './run-outcome.js';
import { appendRun, clearCurrentRun, readCurrentRun, readLastRun, writeCurrentRun } from './run-records.js';
import { RunStream } from './run-stream.js';
import { bubblewrapArgs, findBubblewrap } from './sandbox.js';

export interface LaunchOptions extends AgentCommandOptions {
  config: FederationConfig;
  /** `--timeout`: stop a hung agent after this long and pause the team (outcome `timeout`). */
  timeoutSeconds?: number;
  /** Interrupts the launch (Ctrl-C): the agent is stopped and the team paused, to be resumed later. */
  signal?: AbortSignal;
  /** Told about every lifecycle journal line as it happens (transitions and recorded events). */
  onProgress?: (line: JournalLine) => void;
  hooks?: LoadedHooks;
  inspect?: (event: InspectionEvent) => void;
  /** Given the inspection records of the agent's own `fed event`s (see src/inspect/agent-inspection.ts). */
  inspectRecord?: (record: InspectionRecord) => void;
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
 * Refuses paused, archived, finished and mission-less teams, and a team already running (its lease); an
 * agent left running by a launcher that died is stopped first (at most one agent per team). Applies
 * pending inbox signals, then starts the agent through its preset (argument array, workspace as cwd,
 * `fed` on its PATH, FED_ROOT / FED_TEAM / FED_LAUNCH_PROMPT / FED_LAUNCH_CONTEXT in its environment;
 * a deliverable team's in the read-only sandbox when bwrap is there), resuming the last session by id.
 * While it runs: the inbox is consumed, its event stream read, limits enforced; a pause stops it. When it
 * exits the run gets an honest outcome: complete → report to meta; a transient outcome (or a crash after
 * progress) pauses the team and alerts meta; otherwise the team fails with the reason and meta is alerted.
 */
export async function launchTeam(root: string, teamName: string, options: LaunchOptions): Promise<LaunchResult> {
  const started = Date.now();
  const team = await resolveTeam(root, teamName);
  refuseUnlaunchable(team);
  const archetype = archetypeOf(team);
  const launchLease = await acquireTeamLease(team, 'launch');
  // When `fed actors run` already consumes this team's inbox, it keeps doing so; otherwise the launch does.
  const consumerLease = await tryAcquireTeamLease(team, 'consumer').catch((error: unknown) => {
    launchLease.release();
    throw error;
  });
  const paths = workspacePaths(team.location);
  const backend = openBackend(root);
  const warnings: string[] = [];
  const consumer = consumerLease ? new TeamInboxConsumer(root, team, { inspect: options.inspect, backend }) : undefined;
  let lastSeq = (await loadTeamLifecycle(team, backend.lifecycles)).envelope.seq;
  // Whether the agent itself moved the lifecycle (`fed event`) during this run.
  let progressed = false;
  let running = false;
  let relay: InspectionRelay | undefined;

  // Everything that happened since the last look: printed, and passed to the hooks.
  const catchUp = async () => {
    if (consumer) {
      const result = await consumer.consume();
      warnings.push(...result.warnings, ...(await notifySignals(options.hooks, result.steps)));
    }
    // The agent's own `fed event`s happen in its process: the journal is where the launcher sees them.
    for (const record of relay?.read() ?? []) options.inspectRecord?.(record);
    const lines = (await backend.lifecycles.journalTail(team, 200)).filter((l) => l.seq > lastSeq);
    lastSeq = lines.at(-1)?.seq ?? lastSeq;
    if (running && lines.some((l) => l.source === 'event')) progressed = true;
    lines.forEach((line) => options.onProgress?.(line));
    warnings.push(...(await notifyTransitions(options.hooks, team.domainId, lines)));
    return loadTeamLifecycle(team, backend.lifecycles);
  };

  let agent: AgentProcess | undefined;
  let stream: RunStream | undefined;
  try {
    await stopOrphanedRun(backend, team, options.graceMs ?? 5_000, warnings);
    if (!consumer) await waitForConsumer(backend, team);
    let lifecycle = await catchUp();
    const stateBefore = stateOf(lifecycle.snapshot);
    if (lifecycle.snapshot.status !== 'active') {
      throw new RefusedError('LIFECYCLE_FINAL', `team "${team.domainId}" is already ${stateBefore}; its lifecycle is over — ${stateBefore === 'failed' ? `start a new run with: fed team retry ${team.domainId}` : `for new work send it a new mission (fed signal send --to ${team.domainId} --type directive …), then: fed run --team ${team.domainId}`}`);
    }
    if (stateBefore === 'paused') throw new RefusedError('TEAM_PAUSED', `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`);
    const waiting = archetype.completion.settled(lifecycle.snapshot, team);
    if (waiting?.outcome === 'waiting') {
      throw new RefusedError('NOTHING_TO_DO', `team "${team.domainId}" is ${stateBefore} and has nothing to do until then: ${waiting.next}`);
    }
    const { mission } = lifecycle.snapshot.context;
    if (!mission) {
      throw new RefusedError(
        'NO_MISSION',
        `team "${team.domainId}" has no mission yet; send one first: fed signal send --to ${team.domainId} --type directive --subject "<mission>" --body "<details>"`,
      );
    }

    const context = launchContext(root, team, options.config, stateBefore, mission);
    if (!context.playbookSkillPath) {
      warnings.push(`the playbook skill ${playbookSkillFile(root, options.config)} does not exist, so the launch prompt has none; create it or fix playbookSkill (fed config show checks it)`);
    }
    const files = writeLaunchFiles(context, { archetype, brief: archetype.agentBrief(context, lifecycle.snapshot, team) });
    if (options.inspectRecord) relay = new InspectionRelay(inspectionRelayPath(team.location));
    const run = agentCommand(context, options, readLastRun(team.location), files.promptPath, files.prompt);
    if (!archetype.builtInAgent && basename(run.command.argv[0] ?? '') === DEFAULT_AGENT_COMMAND) {
      throw new RefusedError(
        'NO_BUILT_IN_AGENT',
        `the built-in agent ${DEFAULT_AGENT_COMMAND} cannot do the work of a ${archetype.id} team ("${team.domainId}"); launch it with an LLM agent: fed launch --team ${team.domainId} --agent "<command>" (or set agentCommand)`,
      );
    }
    const baseEnv = options.env ?? process.env;
    const sandbox = archetype.readOnlyCodebase ? readOnlySandbox(root, team, context, options.config, baseEnv, warnings) : undefined;
    // Without the sandbox, the read-only rule is checked before and after: the codebase as seen from the
    // federation root (`.fed/` left out, so the team's own workspace is never a modification) and, for a
    // worktree team, its own checkout.
    const baseline = archetype.readOnlyCodebase && !sandbox ? captureCodebase(root, worktreeScope(team, context)) : undefined;
    if (baseline) writeBaseline(team.location, baseline);
    const limits = options.config.agent.limits;
    let stopReason: StopReason | undefined;
    const startedAt = new Date();
    const current = (): CurrentRun => ({
      runId: run.runId,
      preset: run.preset.name,
      command: run.command.argv,
      pid: agent!.pid,
      processStart: agent!.processStart,
      launcherPid: process.pid,
      sessionId: stream?.stats.sessionId ?? run.command.sessionId,
      resumedSessionId: run.resumedSessionId,
      stateBefore,
      sandboxed: sandbox !== undefined,
      transcriptPath: run.transcriptPath,
      startedAt: startedAt.toISOString(),
    });
    let recordedSession: string | null = run.command.sessionId;
    stream = new RunStream(run.preset, run.transcriptPath, paths.agentLog, (stats) => {
      // The session id is recorded the moment it is known: a launcher that dies still leaves it for the resume.
      if (agent && stats.sessionId && stats.sessionId !== recordedSession) {
        recordedSession = stats.sessionId;
        writeCurrentRun(team.location, current());
      }
      stopReason ??= limitReached(run.preset, stats, limits);
    });
    const liveStream = stream;
    running = true;
    agent = await AgentProcess.start({
      command: run.command.argv,
      wrapper: sandbox,
      cwd: team.location,
      env: {
        ...baseEnv,
        FED_ROOT: root,
        FED_TEAM: team.domainId,
        FED_LAUNCH_PROMPT: files.promptPath,
        FED_LAUNCH_CONTEXT: files.contextPath,
        ...(relay ? { [AGENT_INSPECTION_ENV]: relay.file } : {}),
        PATH: [writeCommandShims(paths.launchBin), baseEnv.PATH].filter(Boolean).join(delimiter),
        ...run.command.env,
      },
      stdin: run.command.stdin,
      onStdout: (chunk) => liveStream.write(chunk),
      logFile: paths.agentLog,
      header: [
        `preset: ${run.preset.name}${run.resumedSessionId ? ` (resuming session ${run.resumedSessionId})` : ''}`,
        `transcript: ${run.transcriptPath}`,
        `sandbox: ${sandbox ? 'bubblewrap, codebase read-only' : 'none'}`,
      ],
      graceMs: options.graceMs,
    });
    writeCurrentRun(team.location, current());
    pushWarning(warnings, await journalQuietly(root, { kind: 'launch-started', team: team.domainId, runId: run.runId, stateBefore }));

    // Supervise: keep consuming the inbox; stop the agent on pause, timeout, a limit or interruption.
    let exited = false;
    const supervised = agent;
    void supervised.exited.then(() => (exited = true));
    const deadline = options.timeoutSeconds ? started + options.timeoutSeconds * 1000 : Number.POSITIVE_INFINITY;
    const wallLimit = limits.maxMinutes ? started + limits.maxMinutes * 60_000 : Number.POSITIVE_INFINITY;
    while (!exited) {
      await Promise.race([supervised.exited, sleep(options.pollMs ?? 200)]);
      lifecycle = await catchUp();
      if (exited) break;
      if (lifecycle.snapshot.value === 'paused') stopReason ??= { kind: 'paused' };
      else if (Date.now() > deadline) stopReason ??= { kind: 'timeout', message: `the agent timed out after ${options.timeoutSeconds} s (--timeout)` };
      else if (Date.now() > wallLimit) stopReason ??= { kind: 'limit', outcome: 'timeout', message: `reached the wall-time limit (${limits.maxMinutes} min)` };
      else if (options.signal?.aborted) stopReason ??= { kind: 'interrupted' };
      if (stopReason) {
        await supervised.stop();
        break;
      }
    }
    // An interruption that arrived while the agent was exiting still means "pause", never "failed".
    if (!stopReason && options.signal?.aborted) stopReason = { kind: 'interrupted' };
    const exit = await supervised.exited;
    stream.close();
    warnings.push(...stream.problems);
    lifecycle = await catchUp();
    running = false;

    let finalState = stateOf(lifecycle.snapshot);
    // Whether the run ended well is the archetype's call: its work complete, or waiting for meta or questions.
    const settled = archetype.completion.settled(lifecycle.snapshot, team);
    const verdict = runOutcome({ preset: run.preset, stats: stream.stats, exit, stop: stopReason, finished: settled !== undefined, progressed });
    const changes = baseline ? codebaseChanges(baseline, recaptureCodebase(baseline)) : [];
    if (sandbox && team.placementType === 'worktree' && statSync(context.deliverablePath, { throwIfNoEntry: false })?.size === 0) unlinkQuietly(context.deliverablePath);
    let reason: string | null = null;
    let next: string | null = null;
    let outcome: LaunchResult['outcome'];

    if (settled?.outcome === 'complete' && changes.length === 0) {
      outcome = 'complete';
      await sendSignal(root, { from: team.domainId, to: META, type: 'report', ...(await archetype.completion.completionReport(context, lifecycle.snapshot)) });
    } else if (settled?.outcome === 'waiting' && changes.length === 0) {
      // The agent's part is done for now: meta's turn (a review, a merge), or the next question's.
      outcome = 'waiting';
      next = settled.next;
    } else if (finalState === 'paused' || (stopReason?.kind === 'paused' && lifecycle.snapshot.status === 'active')) {
      // Stopped because the team was paused: if it was resumed while the agent was stopping, it is simply
      // ready to be launched again — never failed for an exit fed asked for.
      outcome = 'paused';
    } else if (lifecycle.snapshot.status === 'active' && changes.length === 0 && pausesTeam(verdict.outcome, progressed)) {
      // Worth relaunching (the session is resumed): the team is paused with the reason, and meta is told.
      outcome = 'paused';
      reason = `${verdict.outcome}: ${verdict.message ?? verdict.outcome}`;
      await setTeamStatus(root, team.domainId, { type: 'PAUSE' });
      lifecycle = await catchUp();
      finalState = stateOf(lifecycle.snapshot);
      if (stopReason?.kind !== 'interrupted') {
        await sendSignal(root, {
          from: team.domainId,
          to: META,
          type: 'alert',
          subject: `team ${team.domainId} paused: ${verdict.outcome}`,
          body: `${reason}\nRelaunch (resumes the agent's session): fed team resume ${team.domainId} && fed launch --team ${team.domainId}\nAgent log: ${paths.agentLog}\nTranscript: ${run.transcriptPath}`,
        });
      }
    } else {
      outcome = 'failed';
      if (finalState === 'failed') {
        reason = lifecycle.snapshot.context.failure?.reason ?? 'failed';
      } else if (lifecycle.snapshot.status === 'done') {
        // A final state: the modification came after the work was accepted. Say so loudly.
        reason = `${describeCodebaseChanges(changes)} (after the lifecycle reached ${finalState})`;
      } else {
        reason = changes.length ? describeCodebaseChanges(changes) : `${verdict.outcome}: ${verdict.message ?? verdict.outcome} (in state ${finalState}, before the lifecycle was complete)`;
        await applyLifecycleInputs(root, team, [{ source: 'event', event: { type: 'FAIL', reason } }], { inspect: options.inspect });
        lifecycle = await catchUp();
        finalState = stateOf(lifecycle.snapshot);
      }
      await sendSignal(root, { from: team.domainId, to: META, type: 'alert', subject: `team ${team.domainId} failed`, body: `${reason}\nAgent log: ${paths.agentLog}` });
    }

    const stats = stream.stats;
    const lastRun: LaunchRun = {
      ...runFields(current()),
      sessionId: stats.sessionId ?? run.command.sessionId,
      // A resumed session keeps its id even when a CLI does not repeat it.
      ...(stats.sessionId === null && run.command.sessionId === null && run.resumedSessionId ? { sessionId: run.resumedSessionId } : {}),
      outcome: verdict.outcome,
      reason: verdict.message,
      exitCode: exit.code,
      signal: exit.signal,
      turns: stats.turns,
      inputTokens: stats.inputTokens,
      outputTokens: stats.outputTokens,
      costUsd: stats.costUsd,
      stateAfter: finalState,
      progressed,
      endedAt: new Date().toISOString(),
    };
    recordRun(team.location, lastRun);
    pushWarning(warnings, await journalQuietly(root, { kind: 'launch-ended', team: team.domainId, runId: run.runId, result: outcome, outcome: lastRun.outcome, stateAfter: finalState, reason }));
    const result: LaunchResult = {
      team: team.domainId,
      state: finalState,
      outcome,
      agentExitCode: exit.code,
      agentSignal: exit.signal,
      reason,
      next,
      deliverablePath: context.deliverablePath,
      deliverableExists: existsSync(context.deliverablePath),
      logPath: paths.agentLog,
      durationMs: Date.now() - started,
      lastRun,
      warnings,
    };
    pushWarning(warnings, await options.hooks?.notify('onLaunchComplete', result));
    return result;
  } finally {
    // Whatever went wrong, no agent is left running unsupervised once the leases are given up.
    await agent?.stop();
    stream?.close();
    unlinkQuietly(paths.launchBaseline);
    consumerLease?.release();
    launchLease.release();
  }
}

/** What a finished run keeps of the run in progress (its process is gone). */
function runFields(run: CurrentRun): Omit<CurrentRun, 'pid' | 'processStart' | 'launcherPid'> {
  const { pid: _pid, processStart: _start, launcherPid: _launcher, ...kept } = run;
  return kept;
}

/** The run in the journal, and no longer "in progress". */
function recordRun(workspace: string, run: LaunchRun): void {
  appendRun(workspace, run);
  clearCurrentRun(workspace);
}

/**
 * At most one agent per team: a run still recorded as in progress belongs to a launcher that died. Its
 * agent is stopped if it still runs (the watchdog normally does that itself), and the run is recorded as
 * interrupted — with its session id, so this launch resumes it.
 */
async function stopOrphanedRun(backend: FederationBackend, team: RegistryEntry, graceMs: number, warnings: string[]): Promise<void> {
  const orphan = readCurrentRun(team.location);
  if (!orphan) return;
  const stopped = await stopOrphanGroup(orphan.pid, orphan.processStart, graceMs);
  if (stopped) warnings.push(`stopped the agent of an earlier launch (pid ${orphan.pid}) whose launcher (pid ${orphan.launcherPid}) died`);
  const state = stateOf((await loadTeamLifecycle(team, backend.lifecycles)).snapshot);
  recordRun(team.location, {
    ...runFields(orphan),
    outcome: 'interrupted',
    reason: `its launcher (pid ${orphan.launcherPid}) ended without recording the run (it died or failed)${stopped ? '; the agent was still running and was stopped by the next launch' : ''}`,
    exitCode: null,
    signal: null,
    turns: null,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    stateAfter: state,
    progressed: state !== orphan.stateBefore,
    endedAt: new Date().toISOString(),
  });
}

/** A limit the CLI does not enforce itself, reached according to its stream. */
function limitReached(preset: AgentPreset, stats: StreamStats, limits: AgentLimits): StopReason | undefined {
  if (limits.maxTurns && !preset.nativeLimits.maxTurns && stats.turns !== null && stats.turns >= limits.maxTurns) {
    return { kind: 'limit', outcome: 'max-turns', message: `reached the turn limit (${stats.turns} of ${limits.maxTurns} turns)` };
  }
  if (limits.maxCostUsd && !preset.nativeLimits.maxCostUsd && stats.costUsd !== null && stats.costUsd >= limits.maxCostUsd) {
    return { kind: 'limit', outcome: 'budget', message: `reached the cost limit ($${stats.costUsd.toFixed(4)} of $${limits.maxCostUsd})` };
  }
  return undefined;
}

/** A worktree team's own checkout is codebase too, except its deliverable. */
function worktreeScope(team: RegistryEntry, context: LaunchContext): { worktree?: string; ignored?: string[] } {
  return team.placementType === 'worktree' ? { worktree: team.location, ignored: [context.deliverable] } : {};
}

/**
 * The sandbox wrapper for a team that studies the codebase read-only, or undefined (sandbox off, or no
 * bwrap — said once in the launch output, and the before/after check runs instead).
 */
function readOnlySandbox(root: string, team: RegistryEntry, context: LaunchContext, config: FederationConfig, env: NodeJS.ProcessEnv, warnings: string[]): string[] | undefined {
  if (!config.agent.sandbox) return undefined;
  const found = findBubblewrap(env);
  if ('missing' in found) {
    warnings.push(`${found.missing}: the codebase is not mounted read-only for the agent; fed checks it before and after the run instead`);
    return undefined;
  }
  const bwrap = found.bwrap;
  const worktree = team.placementType === 'worktree' ? team.location : undefined;
  // A bind mount needs its target to exist: the deliverable is created empty, for the agent to fill (an
  // empty one is removed again after the run).
  if (worktree) createFileExclusive(context.deliverablePath, '', { durable: false });
  return bubblewrapArgs(bwrap, { root, worktree, writableFiles: worktree ? [context.deliverablePath] : [] });
}

/**
 * Give the running actor consumer a moment to apply the signals waiting in the inbox (the mission may be
 * among them); after a few seconds the launch goes on with what is applied.
 */
async function waitForConsumer(backend: FederationBackend, team: RegistryEntry, limitMs = 5_000): Promise<void> {
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
    const waiting = (await inbox.list()).signals.some((s) => awaitsApply(lifecycle.envelope, s.message));
    if (!waiting || lifecycle.snapshot.value === 'paused') return;
    await sleep(100);
  }
}

function pushWarning(warnings: string[], warning: string | undefined): void {
  if (warning) warnings.push(warning);
}
