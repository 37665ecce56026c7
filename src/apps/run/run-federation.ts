import { availableParallelism } from 'node:os';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { viewLifecycle } from '../../engine/actors/lifecycle-view.js';
import { FedError, RefusedError } from '../../core/errors.js';
import type { FedErrorCode } from '../../core/error-codes.js';
import { reportedTeams, writeFederationReport } from '../plan/federation-report.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import { launchTeam } from '../launch/launch-team.js';
import { refuseUnrunnableAgent } from './refuse-agent-option.js';
import { refuseOverBudget } from '../launch/prepare/federation-budget.js';
import type { LaunchOptions } from '../launch/launch-options.js';
import { WorkflowTrace } from '../launch/run-trace.js';
import { getTeam } from '../../core/find-team.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { makeLaunchable } from './make-launchable.js';
import { judgeTeam, type Candidate } from './team-judgement.js';
import {
  DEFAULT_MAX_WAIT_MS,
  deferredPastDeadline,
  resetAhead,
  sleepUntil,
  takeReady,
  type Waiting,
} from './reset-wait.js';
import type { Federation } from '../../engine/context.js';
import { needsYou } from '../needs-you/needs-you.js';
import { notifyNeedsYou } from '../needs-you/notify-needs-you.js';

/**
 * `fed run`: launch many teams at once — every team that has a mission and is not finished, or the ones
 * named — at most `parallel` at a time, each supervised by `launchTeam` exactly as `fed launch` does.
 * An interruption (Ctrl-C) stops starting teams and pauses the running ones (launchTeam does that); a
 * team paused that way, or by any transient outcome, is resumed by the next run. A team paused by a rate
 * limit is resumed when it resets: the run waits for that (the team stays paused meanwhile, so Ctrl-C or a
 * crash leaves it as it was, for the next run) when it falls within `maxWaitMs`, and skips the team saying
 * when it resumes otherwise. When no deliverable team is left unfinished, meta writes the federation report.
 */
export interface RunFederationOptions extends Omit<LaunchOptions, 'onProgress' | 'signal'> {
  /** Only these teams (ids or domains); each must be runnable, or the run is refused before anything starts. */
  teams?: readonly string[];
  /** At most this many teams at once (default: the number of cores). */
  parallel?: number;
  /**
   * How long the run may wait for rate limits to reset (ms from its start, default 6 h): a team paused by
   * one that resets within it is resumed at the reset; one beyond it is left paused (skipped, or paused).
   */
  maxWaitMs?: number;
  signal?: AbortSignal;
  /** Told every time a team's line changes. */
  onUpdate?: (team: TeamRun) => void;
}

export type TeamRunPhase = 'waiting' | 'running' | 'done' | 'not-started';

/** One team's line of a run: what `fed run` shows live and puts in its summary. */
export interface TeamRun {
  team: string;
  phase: TeamRunPhase;
  /** Its lifecycle state, and since when (ISO). */
  state: string;
  since: string | null;
  lastEvent: string | null;
  /**
   * How its launch ended (done teams); `refused` when fed refused to start it (another process runs the
   * team, an agent that cannot do its work: its lifecycle is as it was), `error` when the launch could not
   * run for another reason (its reason says why).
   */
  outcome: LaunchResult['outcome'] | 'refused' | 'error' | null;
  reason: string | null;
  /** Resumed at the start of this run (it had been paused by an interruption or a transient outcome). */
  resumed: boolean;
  /** When a rate limit it met (or its CLI account's) resets: the run waits for it while `phase` is `waiting`. */
  resumeAt: string | null;
  deliverablePath: string | null;
  durationMs: number | null;
  warnings: string[];
}

export interface RunSummary {
  teams: TeamRun[];
  /**
   * Teams not run, and why (finished, paused by hand, no mission, archived, a rate limit resetting after
   * `maxWaitMs`, files that cannot be read: `unreadable`).
   */
  skipped: { team: string; reason: string; resumeAt?: string; unreadable?: true }[];
  parallel: number;
  /** The most teams that ran at once. */
  maxConcurrent: number;
  completed: number;
  failed: number;
  /** Teams whose launch fed refused to start (TeamRun.outcome `refused`). */
  refused: number;
  paused: number;
  notStarted: number;
  interrupted: boolean;
  /** The federation report's path, when it was written (no deliverable team left unfinished). */
  report: string | null;
  /** What could not be done on the side (telling people what waits on them). */
  warnings: string[];
}

export async function runFederation(fed: Federation, options: RunFederationOptions): Promise<RunSummary> {
  const parallel = options.parallel ?? availableParallelism();
  refuseUnrunnableAgent(fed.root, options);
  // A run launches teams and sends for as long as they run: its sends check a watched registry.
  fed.watchRegistry();
  const { backend } = fed;
  // Rate limits are waited for until this moment at most: a wait, a relaunch and another limit never
  // keep the run going past it.
  const waitDeadline = Date.now() + (options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const registry = await backend.registry.read();
  // A team named twice (`--team docs --team docs`, or by its id and its domain) is one team, run once.
  const named = options.teams?.length
    ? [...new Map(options.teams.map((name) => getTeam(registry, name)).map((t) => [t.domainId, t])).values()]
    : undefined;
  const candidates: Candidate[] = [];
  for (const team of named ?? registry.teams)
    candidates.push(deferredPastDeadline(await judgeTeam(fed, team), waitDeadline));
  if (named) {
    // A team waiting for a rate limit to reset after the deadline is not refused: it is paused, not wrong.
    const refused = candidates.filter((c) => c.skip && !c.resumeAt);
    if (refused.length)
      throw new RefusedError(
        'TEAM_NOT_RUNNABLE',
        refused.map((c) => `team "${c.team.domainId}" is not run: ${c.skip}`).join('; '),
      );
  }
  const runs: TeamRun[] = [];
  const chosen = candidates.filter((c) => !c.skip);
  // A spent budget refuses the run before any team starts; a team whose turn comes after it is spent shows why.
  if (chosen.length) await refuseOverBudget(fed, options.config);
  for (const candidate of chosen) {
    const view = await viewLifecycle(fed, candidate.team, 1);
    runs.push({
      team: candidate.team.domainId,
      phase: 'waiting',
      state: view.state,
      since: view.since,
      lastEvent: view.recent.at(-1)?.event ?? null,
      outcome: null,
      reason: null,
      resumed: false,
      resumeAt: resetAhead(candidate.resumeAt) ?? null,
      deliverablePath: null,
      durationMs: null,
      warnings: [],
    });
  }
  runs.forEach((run) => options.onUpdate?.(run));

  let running = 0;
  let maxConcurrent = 0;
  const queue: Queued[] = chosen.map((candidate, i) => ({
    candidate,
    run: runs[i]!,
    notBefore: candidate.resumeAt ? Date.parse(candidate.resumeAt) : 0,
  }));
  const workflow = await WorkflowTrace.start(runs.map((r) => r.team));
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return stopWaiting(queue.splice(0), options);
      const next = takeReady(queue);
      if (!next) {
        if (queue.length === 0) return;
        // Every team left waits for a reset: sleep until the first (Ctrl-C wakes it), the teams stay paused.
        await sleepUntil(Math.min(...queue.map((q) => q.notBefore)), options.signal);
        continue;
      }
      const candidate = await rejudged(fed, backend, next);
      if (candidate.skip) {
        Object.assign(next.run, { phase: next.launched ? 'done' : 'not-started', reason: candidate.skip });
        options.onUpdate?.(next.run);
        continue;
      }
      running++;
      maxConcurrent = Math.max(maxConcurrent, running);
      try {
        await runOne(fed, candidate, next.run, { ...options, workflow });
      } finally {
        running--;
      }
      // Paused by a rate limit that resets in time: wait for it, then resume the same session.
      const resumeAt = next.run.outcome === 'paused' ? resetAhead(next.run.resumeAt) : undefined;
      if (resumeAt && Date.parse(resumeAt) <= waitDeadline && !options.signal?.aborted) {
        next.run.phase = 'waiting';
        queue.push({ ...next, notBefore: Date.parse(resumeAt), launched: true });
        options.onUpdate?.(next.run);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  workflow.end(runs.map((r) => r.outcome));

  const interrupted = options.signal?.aborted ?? false;
  const reported = await reportedTeams(fed);
  let unfinished = false;
  for (const team of reported) {
    try {
      unfinished ||= (await loadTeamLifecycle(team, backend.lifecycles)).snapshot.status === 'active';
    } catch {
      unfinished = true;
    }
  }
  const report =
    !interrupted && !unfinished && reported.length > 0 ? (await writeFederationReport(fed, options.config)).path : null;
  // Each launch told about its own team; this pass tells the rest (a launch that could not run, meta's questions).
  const told = await notifyNeedsYou(fed, async () => (await needsYou(fed)).items, {
    hooks: options.hooks,
  });
  return {
    teams: runs,
    skipped: candidates
      .filter((c) => c.skip)
      .map((c) => ({
        team: c.team.domainId,
        reason: c.skip!,
        ...(c.resumeAt ? { resumeAt: c.resumeAt } : {}),
        ...(c.unreadable ? { unreadable: true as const } : {}),
      })),
    parallel,
    maxConcurrent,
    completed: runs.filter((r) => r.outcome === 'complete').length,
    failed: runs.filter((r) => r.outcome === 'failed' || r.outcome === 'error').length,
    refused: runs.filter((r) => r.outcome === 'refused').length,
    paused: runs.filter((r) => r.outcome === 'paused').length,
    notStarted: runs.filter((r) => r.phase === 'not-started').length,
    interrupted,
    report,
    warnings: told.warnings,
  };
}

/**
 * The refusals of a launch before its agent starts (fed launch exits 2 for them): another process runs the
 * team, its agent command cannot run or do the work, its agent home or network policy cannot be had, its
 * prompt cannot be passed, the federation's budget is spent, the team cannot be launched now (or no longer:
 * another process ran it since this run judged it).
 */
const REFUSED_BEFORE_START: ReadonlySet<FedErrorCode> = new Set<FedErrorCode>([
  'TEAM_BUSY',
  'AGENT_COMMAND',
  'AGENT_HOME',
  'NETWORK_POLICY_UNAVAILABLE',
  'NO_BUILT_IN_AGENT',
  'PROMPT_TOO_LONG',
  'PROMPT_NUL_BYTE',
  'FEDERATION_BUDGET_SPENT',
  'TEAM_ARCHIVED',
  'TEAM_PAUSED',
  'LIFECYCLE_FINAL',
  'TEAM_NOT_RUNNABLE',
]);

async function runOne(
  fed: Federation,
  candidate: Candidate,
  run: TeamRun,
  options: RunFederationOptions,
): Promise<void> {
  const started = Date.now();
  run.phase = 'running';
  // A new run or a resume is made by the launch once it holds the team's lease: a second fed run that
  // judged the team too is refused by the lease, not starting the new run again or resuming it meanwhile.
  const whenLeased =
    candidate.newRun || candidate.resume
      ? async () => {
          const made = await makeLaunchable(fed, candidate.team.domainId, options.config);
          // The ended run's state (complete, failed) is not the new one's: its progress starts from the first.
          if (made.newRun) Object.assign(run, { state: made.newRun.state, since: made.newRun.since, lastEvent: null });
          run.resumed = made.resumed;
          options.onUpdate?.(run);
        }
      : undefined;
  try {
    if (!whenLeased) options.onUpdate?.(run);
    const result = await launchTeam(fed, candidate.team.domainId, {
      ...options,
      whenLeased,
      signal: options.signal,
      onProgress: (line) => {
        run.lastEvent = line.event;
        if (line.from !== line.to) {
          run.state = line.to;
          run.since = line.at;
        }
        options.onUpdate?.(run);
      },
    });
    Object.assign(run, {
      state: result.state,
      outcome: result.outcome,
      reason: result.reason,
      resumeAt: result.lastRun.resumeAt,
      deliverablePath: result.deliverableExists ? result.deliverablePath : null,
    });
    run.warnings.push(...result.warnings);
  } catch (error) {
    // One team's launch that cannot run (its lease held by another launcher, a broken state file) ends
    // that team's line, never the others' (which are still running and must be seen to their end): one
    // refused before its agent could start as refused — nothing failed — anything else as an error.
    const refused = error instanceof FedError && REFUSED_BEFORE_START.has(error.code);
    Object.assign(run, {
      outcome: refused ? 'refused' : 'error',
      reason: error instanceof Error ? error.message : String(error),
    });
  }
  run.phase = 'done';
  run.durationMs = Date.now() - started;
  options.onUpdate?.(run);
}

/** A team in the run's queue: started once `notBefore` (ms) has passed. */
interface Queued extends Waiting {
  candidate: Candidate;
  run: TeamRun;
  /** Launched in this run already (and paused by a rate limit since). */
  launched?: boolean;
}

/**
 * A team that waited for a reset is judged again before it starts: someone may have paused it by hand,
 * resumed or finished it meanwhile (it is then not run, saying why).
 */
async function rejudged(fed: Federation, backend: FederationBackend, queued: Queued): Promise<Candidate> {
  if (queued.notBefore === 0) return queued.candidate;
  // Its registry entry as it is now (its status changed since the run read it: its launch paused it).
  return judgeTeam(fed, getTeam(await backend.registry.read(), queued.candidate.team.domainId));
}

/** Ctrl-C while teams wait for a reset: they stay paused with their resumeAt; those never started say so. */
function stopWaiting(waiting: readonly Queued[], options: RunFederationOptions): void {
  for (const { run, launched } of waiting) {
    run.phase = launched ? 'done' : 'not-started';
    options.onUpdate?.(run);
  }
}
