import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Mission } from '../../../machines/lifecycle-context.js';
import { TeamInboxConsumer } from '../../engine/actors/consume-inbox.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { acquireTeamLease, tryAcquireTeamLease } from '../../engine/actors/team-lease.js';
import { awaitsApply, lifecycleEntryFor, loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import type { Archetype } from '../../engine/archetypes/archetype.js';
import { archetypeOf } from '../../engine/archetypes/catalog.js';
import { RefusedError } from '../../core/errors.js';
import { journalQuietly } from '../../engine/federation/federation-journal.js';
import { InspectionRelay, inspectionRelayPath } from '../../infra/inspect/agent-inspection.js';
import { createFileExclusive, unlinkQuietly } from '../../infra/fs/atomic-write.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import { workspacePaths } from '../../core/layout.js';
import { statusOf } from '../../core/find-team.js';
import type { LaunchContext } from '../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { DEFAULT_AGENT_COMMAND } from '../../core/schema/config.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import { agentCommand, runPreset } from './prepare/agent-command.js';
import { mcpWired } from './prepare/mcp-server.js';
import { accountOf, activeAccountLimit } from './account-limit.js';
import { pauseForAccountLimit } from './judge/account-pause.js';
import { captureCodebase, launcherOutputFiles } from '../../engine/deliverable/codebase-guard.js';
import { writeBaseline } from '../../engine/deliverable/codebase-baseline.js';
import { writeLaunchFiles } from './prepare/launch-files.js';
import { decideOutcome, type EndedRun, type LaunchDecision } from './judge/launch-outcome.js';
import { superviseWithFixes } from './fix-attempts.js';
import { LaunchPhases } from './launch-phases.js';
import { LaunchWatch } from './launch-watch.js';
import { playbookSkillFile } from '../../infra/config/referenced-files.js';
import { launchContext } from './prepare/launch-context.js';
import { refuseOverBudget } from './prepare/federation-budget.js';
import { stopOrphanedRun } from './prepare/orphan-agent.js';
import { pushWarning, recordLaunchEnd } from './record/launch-record.js';
import { waitAtMost } from '../../infra/repeat.js';
import { readLastRun, runFields, writeCurrentRun } from './run-records.js';
import { clearRefusedCompletion } from './supervise/refused-completion.js';
import { RunningAgent } from './supervise/running-agent.js';
import { startRunTrace } from './run-trace.js';
import { bubblewrapArgs, findBubblewrap, machineMounts } from './prepare/sandbox/sandbox.js';
import { backendOverTheNetwork } from '../../adapters/index.js';
import { hostPolicy, teamNetworkPolicy, type HostPolicy } from './prepare/sandbox/host-policy.js';
import { filterFile, networkNamespaceMissing } from './prepare/sandbox/sandbox-network.js';
import { networkUnavailable } from './prepare/sandbox/network-refusal.js';
import { agentHomePath, prepareAgentHome, type HomeVariables } from './prepare/sandbox/agent-home.js';
import { codeCacheDir } from '../../infra/code-cache-dir.js';
import { packageRoot } from '../../infra/package-info.js';
import type { Federation } from '../../engine/context.js';
import type { LaunchOptions } from './launch-options.js';
import type { Launch, PreparedRun } from './launch-state.js';
import { teamNeedsYou } from '../needs-you/team-items.js';
import { notifyNeedsYou } from '../needs-you/notify-needs-you.js';

function refuseUnlaunchable(team: RegistryEntry): void {
  const status = statusOf(team);
  if (status === 'paused')
    throw new RefusedError(
      'TEAM_PAUSED',
      `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`,
    );
  if (status === 'archived')
    throw new RefusedError('TEAM_ARCHIVED', `team "${team.domainId}" is archived; archived teams are not launched`);
  lifecycleEntryFor(team);
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

/** The launch, step by step, each step moving its sequence (`phases`). */
async function runLaunch(
  fed: Federation,
  teamName: string,
  options: LaunchOptions,
  phases: LaunchPhases,
): Promise<LaunchResult> {
  const { root, backend } = fed;
  const started = Date.now();
  const team = await fed.team(teamName);
  refuseUnlaunchable(team);
  await refuseOverBudget(fed, options.config);
  const archetype = archetypeOf(team);
  const leases = await acquireLeases(team);
  const warnings: string[] = [];
  const consumer = leases.consumes ? new TeamInboxConsumer(fed, team, { inspect: options.inspect }) : undefined;
  const watch = await LaunchWatch.open(team, backend, consumer, options, warnings);
  const launch: Launch = { fed, root, team, archetype, options, backend, watch, phases, warnings, started };
  let agent: RunningAgent | undefined;
  try {
    await stopOrphanedRun(fed, team, options.graceMs ?? 5_000, warnings);
    if (!consumer) await waitForConsumer(backend, team);
    const ready = refuseWithoutWork(team, archetype, await watch.catchUp());
    phases.step({ type: 'CHECKED' });
    const prepared = prepareRun(launch, ready);
    if (prepared.accountLimit) return await pauseForAccountLimit(launch, prepared, prepared.accountLimit);
    watch.trace = await startRunTrace(team.domainId, prepared.run, options);
    watch.running = true;
    agent = await RunningAgent.start(fed, team, prepared, options, watch.relay, watch.trace);
    phases.step({ type: 'AGENT_STARTED' });
    writeCurrentRun(fed, team, agent.current());
    pushWarning(
      warnings,
      await journalQuietly(backend, {
        kind: 'launch-started',
        team: team.domainId,
        runId: prepared.run.runId,
        stateBefore: prepared.stateBefore,
      }),
    );
    const supervised = await superviseWithFixes(
      launch,
      prepared,
      agent,
      async (running) => {
        await superviseAgent(launch, running);
        return endRun(launch, running);
      },
      (next) => (agent = next),
    );
    const ended = supervised.ended;
    phases.step({ type: 'AGENT_EXITED' });
    const decision = await decideOutcome(launch, prepared, supervised.agent, ended);
    phases.step({ type: 'JUDGED', outcome: decision.outcome });
    const result = await recordLaunch(launch, prepared, supervised.agent, ended, decision);
    phases.step({ type: 'RECORDED' });
    return result;
  } catch (error) {
    watch.trace?.abandon(error);
    throw error;
  } finally {
    // Whatever went wrong, no agent is left running unsupervised once the leases are given up.
    await agent?.stopAndClose();
    unlinkQuietly(workspacePaths(team.location).launchBaseline);
    leases.release();
  }
}

/** The team's launch lease, and its consumer lease unless `fed actors run` already consumes its inbox (it keeps doing so then). */
async function acquireLeases(team: RegistryEntry): Promise<{ consumes: boolean; release(): void }> {
  const launchLease = await acquireTeamLease(team, 'launch');
  const consumerLease = await tryAcquireTeamLease(team, 'consumer').catch((error: unknown) => {
    launchLease.release();
    throw error;
  });
  return {
    consumes: consumerLease !== undefined,
    release() {
      consumerLease?.release();
      launchLease.release();
    },
  };
}

/** What the checks found: the lifecycle the launch starts from, its state and mission. */
interface LaunchReady {
  lifecycle: TeamLifecycle;
  stateBefore: string;
  mission: Mission;
}

/** A launch needs work to do: a lifecycle not over, not paused, not waiting for someone else, with a mission. */
function refuseWithoutWork(team: RegistryEntry, archetype: Archetype, lifecycle: TeamLifecycle): LaunchReady {
  const stateBefore = stateOf(lifecycle.snapshot);
  if (lifecycle.snapshot.status !== 'active') {
    throw new RefusedError(
      'LIFECYCLE_FINAL',
      `team "${team.domainId}" is already ${stateBefore}; its lifecycle is over — ${stateBefore === 'failed' ? `start a new run with: fed team retry ${team.domainId}` : `for new work send it a new mission (fed signal send --to ${team.domainId} --type directive …), then: fed run --team ${team.domainId}`}`,
    );
  }
  if (stateBefore === 'paused')
    throw new RefusedError(
      'TEAM_PAUSED',
      `team "${team.domainId}" is paused; resume it first: fed team resume ${team.domainId}`,
    );
  const waiting = archetype.completion.settled(lifecycle.snapshot, team);
  if (waiting?.outcome === 'waiting') {
    throw new RefusedError(
      'NOTHING_TO_DO',
      `team "${team.domainId}" is ${stateBefore} and has nothing to do until then: ${waiting.next}`,
    );
  }
  const { mission } = lifecycle.snapshot.context;
  if (!mission) {
    throw new RefusedError(
      'NO_MISSION',
      `team "${team.domainId}" has no mission yet; send one first: fed signal send --to ${team.domainId} --type directive --subject "<mission>" --body "<details>"`,
    );
  }
  return { lifecycle, stateBefore, mission };
}

/**
 * Everything the agent needs before it starts: its context and prompt (with the archetype's brief), the
 * inspection relay, its command (refused when the built-in agent cannot do the archetype's work), and
 * for a read-only team the sandbox — or, without one, the codebase baseline checked after the run.
 */
function prepareRun(launch: Launch, ready: LaunchReady): PreparedRun {
  const { root, team, archetype, options, warnings } = launch;
  const { stateBefore } = ready;
  const context = launchContext(
    root,
    team,
    options.config,
    stateBefore,
    ready.mission,
    mcpWired(runPreset(root, options).preset, options.config),
  );
  if (!context.playbookSkillPath) {
    warnings.push(
      `the playbook skill ${playbookSkillFile(root, options.config)} does not exist, so the launch prompt has none; create it or fix playbookSkill (fed config show checks it)`,
    );
  }
  const files = writeLaunchFiles(launch.fed, team, context, {
    archetype,
    brief: archetype.agentBrief(context, ready.lifecycle.snapshot, team),
  });
  if (options.inspectRecord) launch.watch.relay = new InspectionRelay(inspectionRelayPath(team.location));
  // Before the command: a CLI with a sandbox of its own is told to leave it off inside fed's.
  const preset = runPreset(root, options).preset;
  const policy = hostPolicy(teamNetworkPolicy(options.config.agent, team.domainId), preset.providerHosts);
  const { sandbox, network } = archetype.readOnlyCodebase
    ? readOnlySandbox(root, team, context, options, warnings, {
        policy,
        builtIn: preset.name === 'fed-agent',
        homeFiles: options.config.agent.homeFiles ?? preset.homeFiles,
        homeVariables: preset.homeVariables,
      })
    : { sandbox: undefined, network: undefined };
  const run = agentCommand(context, options, readLastRun(team.location), files.promptPath, files.prompt, {
    sandboxed: sandbox !== undefined,
  });
  if (!archetype.builtInAgent && basename(run.command.argv[0] ?? '') === DEFAULT_AGENT_COMMAND) {
    throw new RefusedError(
      'NO_BUILT_IN_AGENT',
      `the built-in agent ${DEFAULT_AGENT_COMMAND} cannot do the work of a ${archetype.id} team ("${team.domainId}"); launch it with an LLM agent: fed launch --team ${team.domainId} --agent "<command>" (or set agentCommand)`,
    );
  }
  // The account's limit, before the sandbox or baseline: the agent is not started while it lasts.
  const accountLimit = activeAccountLimit(
    launch.fed,
    accountOf(options.config, run.preset.name),
    launch.fed.now(),
    warnings,
  );
  if (accountLimit) return { context, files, run, stateBefore, sandbox, network, baseline: undefined, accountLimit };
  // Without the sandbox, the read-only rule is checked before and after: the codebase as seen from the
  // federation root (`.fed/` left out, so the team's own workspace is never a modification) and, for a
  // worktree team, its own checkout — but not a file this launcher's own output goes to (`fed launch > l.out`).
  const baseline =
    archetype.readOnlyCodebase && !sandbox
      ? captureCodebase(root, { ...worktreeScope(team, context), launcherOutput: launcherOutputFiles() })
      : undefined;
  if (baseline) writeBaseline(launch.fed, team, baseline);
  clearRefusedCompletion(launch.fed, team);
  return { context, files, run, stateBefore, sandbox, network, baseline };
}

/** Supervise: keep consuming the inbox while the agent runs; stop it on pause, timeout, a limit or interruption. */
async function superviseAgent(launch: Launch, agent: RunningAgent): Promise<void> {
  const { options, started } = launch;
  const limits = options.config.agent.limits;
  let exited = false;
  const supervised = agent.process;
  void supervised.exited.then(() => (exited = true));
  const deadline = options.timeoutSeconds ? started + options.timeoutSeconds * 1000 : Number.POSITIVE_INFINITY;
  const wallLimit = limits.maxMinutes ? started + limits.maxMinutes * 60_000 : Number.POSITIVE_INFINITY;
  while (!exited) {
    await waitAtMost(supervised.exited, options.pollMs ?? 200);
    const lifecycle = await launch.watch.catchUp();
    if (exited) break;
    agent.noticeSilentWait();
    if (lifecycle.snapshot.value === 'paused') agent.stop ??= { kind: 'paused' };
    else if (Date.now() > deadline)
      agent.stop ??= { kind: 'timeout', message: `the agent timed out after ${options.timeoutSeconds} s (--timeout)` };
    else if (Date.now() > wallLimit)
      agent.stop ??= {
        kind: 'limit',
        outcome: 'timeout',
        message: `reached the wall-time limit (${limits.maxMinutes} min)`,
      };
    else if (options.signal?.aborted) agent.stop ??= { kind: 'interrupted' };
    if (agent.stop) {
      launch.phases.step({ type: 'STOP', reason: agent.stop.kind });
      await supervised.stop();
      break;
    }
  }
  // An interruption that arrived while the agent was exiting still means "pause", never "failed".
  if (!agent.stop && options.signal?.aborted) agent.stop = { kind: 'interrupted' };
}

/** The agent has exited and its events are applied: its stream is closed, and the lifecycle read as the run left it. */
async function endRun(launch: Launch, agent: RunningAgent): Promise<EndedRun> {
  const exit = await agent.ended();
  agent.stream.close();
  launch.warnings.push(...agent.stream.problems);
  const lifecycle = await launch.watch.catchUp();
  launch.watch.running = false;
  return { exit, lifecycle };
}

/** The run recorded (run journal, federation journal), the result told to the hooks and returned. */
async function recordLaunch(
  launch: Launch,
  prepared: PreparedRun,
  agent: RunningAgent,
  ended: EndedRun,
  decision: LaunchDecision,
): Promise<LaunchResult> {
  const { run } = prepared;
  const { verdict, finalState, outcome } = decision;
  const stats = agent.stream.stats;
  const lastRun: LaunchRun = {
    ...runFields(agent.current()),
    sessionId: stats.sessionId ?? run.command.sessionId,
    // A resumed session keeps its id even when a CLI does not repeat it.
    ...(stats.sessionId === null && run.command.sessionId === null && run.resumedSessionId
      ? { sessionId: run.resumedSessionId }
      : {}),
    outcome: verdict.outcome,
    reason: verdict.message,
    exitCode: ended.exit.code,
    signal: ended.exit.signal,
    turns: stats.turns,
    model: stats.model ?? launch.options.config.agent.model ?? null,
    inputTokens: stats.inputTokens,
    outputTokens: stats.outputTokens,
    cacheReadTokens: stats.cacheReadTokens,
    cacheWriteTokens: stats.cacheWriteTokens,
    costUsd: stats.costUsd,
    resumeAt: decision.resumeAt,
    fixAttempts: ended.fixAttempts ?? 0,
    promptPath: run.promptPath,
    traceId: launch.watch.trace?.traceId ?? null,
    stateAfter: finalState,
    progressed: launch.watch.progressed,
    ...(agent.networkRecord() ? { network: agent.networkRecord() } : {}),
    endedAt: new Date().toISOString(),
  };
  return recordLaunchEnd(launch, prepared, lastRun, {
    outcome,
    state: finalState,
    reason: decision.reason,
    next: decision.next,
    exit: ended.exit,
  });
}

/** A worktree team's own checkout is codebase too, except its deliverable. */
function worktreeScope(team: RegistryEntry, context: LaunchContext): { worktree?: string; ignored?: string[] } {
  return team.placementType === 'worktree' ? { worktree: team.location, ignored: [context.deliverable] } : {};
}

/**
 * The sandbox wrapper for a team that studies the codebase read-only, or undefined (sandbox off, or no
 * bwrap — said once in the launch output, and the before/after check runs instead).
 */
function readOnlySandbox(
  root: string,
  team: RegistryEntry,
  context: LaunchContext,
  options: LaunchOptions,
  warnings: string[],
  agent: {
    policy: 'open' | HostPolicy;
    builtIn: boolean;
    homeFiles: readonly string[];
    homeVariables: HomeVariables | undefined;
  },
): { sandbox: ((program: string) => string[]) | undefined; network: HostPolicy | undefined } {
  const { config } = options;
  const env = options.env ?? process.env;
  if (!config.agent.sandbox) return { sandbox: undefined, network: undefined };
  if (agent.policy === 'open')
    warnings.push(
      `team "${team.domainId}" has the network policy "open": its agent can reach any host (agent.network)`,
    );
  const home = agentHomePath(root, team, config.agent);
  const found = findBubblewrap(env, config.agent.home === undefined ? [] : [dirname(home)]);
  // The built-in agent reads a backend on a server itself (running-agent.ts): fed's own code, it keeps the
  // machine's network for that one connection.
  const ownConnection = agent.builtIn && backendOverTheNetwork(config);
  const policy = agent.policy === 'open' || ownConnection ? undefined : agent.policy;
  // Never a silent fall-back to an open network (the built-in agent is fed's own code and opens no other connection).
  const missing = 'missing' in found ? found.missing : policy && networkNamespaceMissing(found.bwrap);
  if (missing && policy && !agent.builtIn) throw networkUnavailable(team.domainId, policy, missing);
  if ('missing' in found) {
    warnings.push(
      `${found.missing}: the codebase is not mounted read-only for the agent; fed checks it before and after the run instead`,
    );
    return { sandbox: undefined, network: undefined };
  }
  const bwrap = found.bwrap;
  const worktree = team.placementType === 'worktree' ? team.location : undefined;
  // A bind mount needs its target to exist: the deliverable is created empty, for the agent to fill (an
  // empty one is removed again after the run).
  if (worktree) createFileExclusive(context.deliverablePath, '', { durable: false });
  // Made now if missing, so that the agent cannot make it (with a cache of its own) before it is protected.
  const codeCache = codeCacheDir(env);
  if (codeCache) mkdirSync(codeCache, { recursive: true, mode: 0o700 });
  const networked = policy !== undefined && !missing;
  const plan = {
    root,
    workspace: team.location,
    worktree,
    writableFiles: worktree ? [context.deliverablePath] : [],
    machine: machineMounts(env, { codeCache, installation: packageRoot() }),
    network: networked ? { filterFile: filterFile(team.location), forwardedPorts: policy.forwarded } : undefined,
    home: prepareAgentHome(home, env, agent.homeFiles, agent.homeVariables),
  };
  return {
    sandbox: (program) => bubblewrapArgs(bwrap, { ...plan, program }),
    network: networked ? policy : undefined,
  };
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
