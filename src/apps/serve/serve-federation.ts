import { availableParallelism } from 'node:os';
import { thisHostName } from '../../core/host-name.js';
import { waitAtMost } from '../../infra/repeat.js';
import type { Federation } from '../../engine/context.js';
import { runActors, TeamWakeEvent } from '../../engine/actors/run-actors.js';
import type { FederationChange, FederationChanges } from '../../ports/federation-changes.js';
import { sharedChanges } from '../../engine/federation/shared-changes.js';
import type { LaunchOptions } from '../launch/launch-options.js';
import { launchTeam } from '../launch/launch-team.js';
import { SpareWatchdogs } from '../launch/supervise/spare-watchdogs.js';
import { DEFAULT_GRACE_MS } from '../launch/supervise/agent-process.js';
import { runMonitor } from '../monitor/run-monitor.js';
import { makeLaunchable } from '../run/make-launchable.js';
import { refuseUnrunnableAgent } from '../run/refuse-agent-option.js';
import type { Candidate } from '../run/team-judgement.js';
import { Dispatcher, type DispatchState, type LaunchEnd, type StopSummary } from './dispatcher.js';
import { stopAbandonedAgent } from './abandoned-launch.js';
import type { ServeEvent } from './serve-events.js';
import { watchConfig } from './config-watch.js';
import { ScheduleRunner } from './schedule-runner.js';
import { acquireServeLease } from './serve-lease.js';
import { startHeartbeat } from './host-heartbeat.js';
import { hostWatch } from './host-watch.js';
import { fenceAgents } from './host-fence.js';
import { Placement } from './placement.js';
import { keepTeamWhileLaunching } from '../hosts/keep-team-while-launching.js';
import { heartbeatMs, workAckWaitMs } from '../hosts/host-liveness.js';
import { StoreContact } from '../hosts/store-contact.js';
import { takeUnplacedWork } from './take-unplaced-work.js';

export interface ServeOptions extends Omit<LaunchOptions, 'onProgress' | 'signal' | 'workflow' | 'watchdogs'> {
  /** At most this many agents at once (default: the machine's cores). */
  capacity?: number;
  /** This machine's name among the hosts serving the federation (default: config `serve.hostName`, else the system's host name). */
  host?: string;
  /** Aborting it stops the server: nothing more is dispatched, running agents get `stopGraceMs` to finish. */
  signal: AbortSignal;
  /** Aborting it (a second Ctrl-C or SIGTERM) cuts the grace short: the running agents are stopped now. */
  stopNow?: AbortSignal;
  /** How long running agents may go on once the server is stopping (default 60 s); then they are paused. */
  stopGraceMs?: number;
  /** How often the monitoring cycle runs: health, overdue signals' alerts, notifications (default 60 s). */
  monitorIntervalMs?: number;
  /** The first retry of a team whose launch ended with its work unfinished waits this long, doubling (default 30 s). */
  backoffMs?: number;
  /** Told everything the server does, as it does it. */
  onEvent: (event: ServeEvent) => void;
  /**
   * Called once the server runs (its lease held, its actors and watch started), before any dispatch, with
   * the change feed it watches and a read-only view of its dispatcher, for what else the process serves
   * from them (the dashboard).
   */
  onStarted?: (shared: { changes: FederationChanges; dispatch: DispatchView }) => Promise<void> | void;
}

/** The dispatcher as others may see it: what it holds now, nothing to change it with. */
export interface DispatchView {
  state(): DispatchState;
}

/** Teams whose agents were stopped when the server stopped: paused, or their runs' ends owed (dispatcher.ts). */
export type ServeSummary = StopSummary;

export const DEFAULT_STOP_GRACE_MS = 60_000;
export const DEFAULT_MONITOR_INTERVAL_MS = 60_000;
/** The actors' full rescan while serving: a safety net behind each inbox's arrival watch, not the fast path. */
const ACTORS_RESCAN_MS = 30_000;
/** How soon a team moved here whose workspace could not be made is tried again. */
const WORKSPACE_RETRY_MS = 30_000;
/** How long stopping waits for the actors' and the monitor's step at work. */
const BACKGROUND_STOP_MS = 5_000;

/**
 * `fed serve`: run the federation by itself until stopped — apply every team's signals as they arrive
 * (the actors), launch a team's agent whenever it has work (the dispatcher), and run the monitoring
 * cycle — in one process, driven by one change feed. One server per federation and machine (its lease).
 *
 * Stopping (`signal`): nothing more is dispatched; running agents get `stopGraceMs` to finish, then are
 * stopped and their teams paused, each resumed — its session too — by the next start. A server killed
 * outright leaves its teams as a killed `fed launch` does: the next start finishes what was owed (the
 * orphaned run's record and report) and stops an agent left running before it launches another.
 */
export async function serveFederation(fed: Federation, options: ServeOptions): Promise<ServeSummary> {
  const host = options.host ?? thisHostName(fed.config);
  const capacity = options.capacity ?? availableParallelism();
  refuseUnrunnableAgent(fed.root, options);
  const lease = await acquireServeLease(fed.root, host);
  // What is started is stopped in the reverse order, however far the start got: a start that fails half way
  // (a config watch that cannot be set up) leaves no actors running and no lease held.
  const stops: (() => unknown)[] = [() => lease.release()];
  // The server sends (actors' reports, launches' alerts) for as long as it runs: a watched registry.
  fed.watchRegistry();
  const emit = options.onEvent;
  const now = () => new Date().toISOString();
  // A team moved here gets its workspace made when first served: its actor joins at once.
  const ackWaitMs = workAckWaitMs(fed.config.serve);
  const placement = new Placement(
    fed,
    host,
    () => actorsWake.dispatchEvent(new Event('wake')),
    (team, refusal) => {
      emit({ kind: 'warning', at: now(), text: `${team}: its workspace cannot be made here: ${refusal.message}` });
      // Tried again in a while: what was missing (a pushed commit, a branch out of the way) may be there by then.
      setTimeout(() => dispatcher.changed(team), WORKSPACE_RETRY_MS).unref();
    },
  );
  // The config as the file is now (set once the watch runs): a team's own agent, added while serving, is used.
  let currentConfig = () => options.config;
  // A dispatch takes a watchdog that is running already: the agent's start waits for no other node start.
  const watchdogs = new SpareWatchdogs();
  stops.push(() => watchdogs.close());
  const dispatcher = new Dispatcher(fed, {
    capacity,
    backoffMs: options.backoffMs,
    onEvent: emit,
    config: () => currentConfig(),
    launch: (candidate, signal) =>
      launchOne(fed, candidate, signal, { ...options, config: currentConfig(), watchdogs }, actorsWake),
    serves: (team) => placement.serves(team),
    abandon: (team) => stopAbandonedAgent(team, options.graceMs),
    unplaced: fed.backend.work && {
      handles: (team) => placement.unplaced(team),
      offer: (team, key) => fed.backend.work!.offer(team, key),
      claim: (team) => placement.claim(team),
      ackWaitMs,
    },
  });
  // The actors, the monitor and the feed stop after the agents: a stopping agent's last events and signals
  // are still applied.
  const background = new AbortController();
  // Wakes the actors when the server itself changed a lifecycle (a new run, a resume): what it left to
  // apply is in the envelope, not an inbox arrival.
  const actorsWake = new EventTarget();
  let feedError: Error | undefined;
  // The actors or the monitor ending on their own (an error they could not go on from) stops the server.
  let broken: unknown;
  const stopOnFailure = (error: unknown) => {
    broken ??= error;
    background.abort();
  };
  let stopped: StopSummary;
  try {
    // One watch of the change feed for the dispatcher and, with --ui, the dashboard.
    const changes = sharedChanges(fed.backend.changes);
    stops.push(() => changes.close());
    const feed = changes.watch(
      (change) => routeChange(change, dispatcher),
      (error) => {
        feedError = error;
        background.abort();
      },
    );
    stops.push(() => feed.close());
    const actors = runActors(fed, {
      signal: background.signal,
      hooks: options.hooks,
      inspect: options.inspect,
      streamSteps: true,
      rescanMs: ACTORS_RESCAN_MS,
      wakeOn: actorsWake,
      onResult: (result) => {
        for (const step of result.steps) {
          const line = step.line;
          if (line && line.from !== line.to)
            emit({ kind: 'applied', at: line.at, team: result.team, from: line.from, to: line.to, event: line.event });
        }
        for (const warning of result.warnings) emit({ kind: 'warning', at: now(), text: `${result.team}: ${warning}` });
      },
      onSkip: (team, reason, error, entry) => {
        // Another launcher runs it (TEAM_BUSY), or it works on another machine: its actor runs there.
        if (error.code === 'TEAM_BUSY' || error.code === 'TEAM_ELSEWHERE') return;
        // Just placed here, its workspace not made yet: the placement makes it (its actor joins then) or says why not.
        if (error.code === 'WORKSPACE_MISSING' && placement.arriving(entry)) return;
        emit({ kind: 'skipped', at: now(), team, reason });
      },
    });
    const monitor = runMonitor(fed, {
      config: options.config,
      intervalMs: options.monitorIntervalMs ?? DEFAULT_MONITOR_INTERVAL_MS,
      signal: background.signal,
      env: options.env,
      hooks: options.hooks,
      onReport: () => undefined,
      onWarning: (text) => emit({ kind: 'warning', at: now(), text }),
    });
    actors.catch(stopOnFailure);
    monitor.catch(stopOnFailure);
    stops.push(() => {
      background.abort();
      // Each stops between two steps; a step whose write an unreachable broker holds (retried for a minute)
      // is not waited for: closing the backend ends it, and what it did not write is applied again later.
      return waitAtMost(Promise.allSettled([actors, monitor]), BACKGROUND_STOP_MS);
    });
    const schedules = new ScheduleRunner(fed, emit);
    stops.push(() => schedules.stop());
    const config = watchConfig(
      fed.root,
      options.env,
      options.config,
      (changed) => schedules.update(changed.schedules ?? []),
      emit,
    );
    stops.push(() => config.stop());
    currentConfig = () => config.current();
    const stopDispatching = AbortSignal.any([options.signal, background.signal]);
    await feed.ready;
    // On a federation shared across machines: this host announced, renewed, and the other hosts watched;
    // its agents stopped should its heartbeat go unwritten long enough for the others to take it over.
    const warn = (text: string) => emit({ kind: 'warning', at: now(), text });
    const contact = new StoreContact(heartbeatMs(fed.config.serve));
    const heartbeat = await startHeartbeat(fed, {
      host,
      capacity,
      running: () => dispatcher.runningTeams(),
      contact,
      fence: fenceAgents(fed, host, options.graceMs ?? DEFAULT_GRACE_MS, dispatcher, warn),
      onBeat: hostWatch(fed, host, contact, emit),
      onWarning: warn,
    });
    // Stopped first: the host is marked stopped (not lost) only when the server stops as asked.
    stops.push(() =>
      heartbeat?.stop(!feedError && broken === undefined).catch((error: unknown) =>
        emit({
          kind: 'warning',
          at: now(),
          text: `host ${host} could not be marked stopped: ${(error as Error).message}`,
        }),
      ),
    );
    await schedules.start(options.config.schedules ?? []);
    emit({ kind: 'started', at: now(), root: fed.root, host, pid: process.pid, capacity });
    await options.onStarted?.({ changes, dispatch: { state: () => dispatcher.state() } });
    // On a federation shared across machines: this server's share of the unplaced teams' work.
    const taking = fed.backend.work
      ? takeUnplacedWork(fed.backend.work, dispatcher, ackWaitMs, stopDispatching, (text) =>
          emit({ kind: 'warning', at: now(), text }),
        )
      : Promise.resolve();
    await dispatcher.run(stopDispatching);
    await taking;
    const running = dispatcher.runningTeams();
    const graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    if (running.length) emit({ kind: 'stopping', at: now(), running, graceMs });
    stopped = await dispatcher.stop(graceMs, options.stopNow ?? new AbortController().signal);
    emit({ kind: 'stopped', at: now(), ...stopped });
  } finally {
    await stopAll(stops.reverse());
  }
  // What stopped the server besides a person: the change feed broke, or the actors or the monitor could not go on.
  if (feedError) throw feedError;
  if (broken !== undefined && !options.signal.aborted) throw broken;
  return stopped;
}

/** Run every stop in turn, each even when one before it failed; then throw the first failure. */
async function stopAll(stops: readonly (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const stop of stops)
    await Promise.resolve()
      .then(stop)
      .catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/** What a change means to the dispatcher: a team judged again, or every team. */
function routeChange(change: FederationChange, dispatcher: Dispatcher): void {
  if (change.scope === 'registry' || change.scope === 'all') dispatcher.changed();
  else if (change.scope === 'team' && change.what !== 'outbox' && change.what !== 'deliverable')
    dispatcher.changed(change.team);
}

/**
 * One team's launch, as `fed run` makes it: a new run for a new mission, a resume, then `fed launch`. A
 * launch that cannot run (a person's `fed launch` of the team holds it, its state is broken) throws: the
 * dispatcher says so and tries the team again after a backoff.
 */
async function launchOne(
  fed: Federation,
  candidate: Candidate,
  signal: AbortSignal,
  options: ServeOptions & Pick<LaunchOptions, 'watchdogs'>,
  actorsWake: EventTarget,
): Promise<LaunchEnd> {
  // Made once the launch holds the team's lease (a `fed run` of it meanwhile is refused, or refuses this).
  const whenLeased =
    candidate.newRun || candidate.resume
      ? async () => {
          await makeLaunchable(fed, candidate.team.domainId, options.config);
          actorsWake.dispatchEvent(new TeamWakeEvent(candidate.team.domainId));
        }
      : undefined;
  // What a move of the team off this host needs, kept as the launch goes (should the host be lost even
  // mid-launch): its files, a worktree team's commits (pushed with serve.pushTeamBranches).
  const warn = (text: string) =>
    options.onEvent({ kind: 'warning', at: new Date().toISOString(), text: `${candidate.team.domainId}: ${text}` });
  const result = await keepTeamWhileLaunching(fed, candidate.team, warn, () =>
    launchTeam(fed, candidate.team.domainId, { ...options, signal, whenLeased }),
  );
  result.warnings.forEach(warn);
  return {
    ok: true,
    result: { outcome: result.outcome, state: result.state, reason: result.reason, resumeAt: result.lastRun.resumeAt },
  };
}
