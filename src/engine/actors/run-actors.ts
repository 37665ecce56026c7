import { setTimeout as delay } from 'node:timers/promises';
import { lifecycleFor } from '../archetypes/catalog.js';
import { FedError, RefusedError } from '../../core/errors.js';
import type { LoadedHooks } from '../hooks/load-hooks.js';
import { notifyConsumed } from '../hooks/notify-hooks.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { WORKSPACE_REFUSALS } from '../../adapters/index.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { TeamInboxConsumer, type ConsumeResult, type ConsumerOptions } from './consume-inbox.js';
import { acquireTeamLease, type TeamLease } from './team-lease.js';
import type { LifecycleStep } from './lifecycle-types.js';
import type { Federation } from '../context.js';
import { wakeLatch } from '../../infra/watch/wake-latch.js';
import { SETTLE_MS } from '../../core/schema/signal.js';

export interface RunActorsOptions extends ConsumerOptions {
  /** Only this team (default: every active team with a lifecycle machine). */
  team?: string;
  /** Process what is pending and return, instead of watching until `signal` aborts. */
  once?: boolean;
  /** Told after each consume that did something, e.g. to print transitions. */
  onResult?: (result: ConsumeResult) => void | Promise<void>;
  /**
   * How often the full rescan runs while watching (default 1 000 ms): it picks up teams onboarded meanwhile
   * and backs up the inboxes' arrival wake-ups (fs.watch, JetStream's stored messages), which are the fast path.
   */
  rescanMs?: number;
  /**
   * Told about a team skipped for now (another process runs it — `TEAM_BUSY` —, or its state cannot be
   * used); it is tried again at the next rescan. `entry`: the team as the skip found it in the registry.
   */
  onSkip?: (team: string, reason: string, error: FedError, entry: RegistryEntry) => void;
  /** Told, after each consume's state is saved, about its signals (`onSignal`) and state changes (`onTransition`). */
  hooks?: LoadedHooks;
  /**
   * Report each batch's steps (to `onResult` and the hooks) as soon as it is saved instead of collecting a
   * consume's steps: what `fed actors run` does, so a run over 100 000 signals holds one batch, not all.
   * The results returned then carry no steps.
   */
  streamSteps?: boolean;
  /**
   * While watching, a `wake` event on it makes an actor consume now — the team's of a `TeamWakeEvent`,
   * every team's for any other event: what a process that holds the actors and changes a lifecycle itself
   * uses (`fed serve` starting a new run, whose mission waits in the envelope's held list, not in an inbox
   * arrival that would wake the actor).
   */
  wakeOn?: EventTarget;
}

/** Wakes one team's actor through `RunActorsOptions.wakeOn`. */
export class TeamWakeEvent extends Event {
  constructor(readonly team: string) {
    super('wake');
  }
}

interface RunningTeam {
  consumer: TeamInboxConsumer;
  lease: TeamLease;
  /** Stops the inbox's arrival wake-ups. */
  stopWatch: (() => void) | undefined;
}

async function teamsToRun(backend: FederationBackend, team: string | undefined): Promise<RegistryEntry[]> {
  const registry = await backend.registry.read();
  if (team) {
    const entry = getTeam(registry, team);
    if (statusOf(entry) === 'archived')
      throw new RefusedError('TEAM_ARCHIVED', `team "${entry.domainId}" is archived; its actor does not run`);
    if (!lifecycleFor(entry.archetypeId)) {
      throw new RefusedError(
        'NO_LIFECYCLE',
        `team "${entry.domainId}" has archetype "${entry.archetypeId}", which has no lifecycle machine`,
      );
    }
    return [entry];
  }
  // Paused teams run too: their `resume` directive must get through (other signals wait).
  return registry.teams.filter((t) => statusOf(t) !== 'archived' && lifecycleFor(t.archetypeId));
}

/**
 * `fed actors run`: hold each team's lease, consume its inbox, and (unless `once`) keep watching with the
 * transport's watch until `signal` aborts. Returns the per-team results of the last consume.
 */
export async function runActors(fed: Federation, options: RunActorsOptions = {}): Promise<ConsumeResult[]> {
  // A watching run sends for as long as it runs (reports to meta): its sends check a watched registry.
  if (!options.once) fed.watchRegistry();
  const running = new Map<string, RunningTeam>();
  const results = new Map<string, ConsumeResult>();
  const consume = async (team: RunningTeam) => {
    let result: ConsumeResult;
    try {
      result = await team.consumer.consume();
    } catch (error) {
      // Archived while running: its actor stops for good (its lifecycle never changes again).
      if (error instanceof FedError && error.code === 'TEAM_ARCHIVED') {
        stop(team);
        running.delete(team.consumer.team.domainId);
        if (options.team) throw error;
        options.onSkip?.(team.consumer.team.domainId, error.message, error, team.consumer.team);
        return;
      }
      // Running every team: one team's broken state (a corrupt or unknown-version state file, a lock
      // that does not come free) is reported and retried later, never allowed to stop the others.
      if (options.team || !(error instanceof FedError)) throw error;
      options.onSkip?.(team.consumer.team.domainId, error.message, error, team.consumer.team);
      return;
    }
    // Hooks run after the state is saved; a throwing one is reported and changes nothing.
    if (options.hooks && result.steps.length > 0)
      result.warnings.push(...(await notifyConsumed(options.hooks, result)));
    results.set(result.team, result);
    if (result.steps.length || result.quarantined.length || result.restored.length || result.warnings.length)
      await options.onResult?.(result);
  };
  try {
    await join(fed, options, running);
    for (const team of [...running.values()]) await consume(team);
    if (options.once) {
      await consumeUntilSettled(running, results, consume, options);
      return [...results.values()];
    }

    // Watch: an inbox's arrival wakes its own team's actor; the rescan timer (and a wake-up that names no
    // team) wakes every team's, and picks up teams onboarded meanwhile. A wake-up reads nothing itself: the
    // consumer's read is the only one, so nothing is kept per signal between consumes. A wake-up heard
    // while consuming is kept, so the next wait ends at once (its signal may have arrived after the
    // consume's read): it is never left to the rescan. Waking only the team that heard something keeps an
    // idle federation idle: a thousand watches told at once (each is told once when live) cost a thousand
    // consumes, not a thousand passes over every team.
    const arrivals = wakeLatch();
    const woken = new Set<string>();
    let everyone = false;
    const wakeTeam = (team: string) => {
      woken.add(team);
      arrivals.wake();
    };
    const wakeEveryone = () => {
      everyone = true;
      arrivals.wake();
    };
    const onWake = (event: Event) => (event instanceof TeamWakeEvent ? wakeTeam(event.team) : wakeEveryone());
    const timer = setInterval(wakeEveryone, options.rescanMs ?? 1_000);
    options.signal?.addEventListener('abort', arrivals.wake);
    options.wakeOn?.addEventListener('wake', onWake);
    try {
      for (const team of running.values()) watchTeam(team, wakeTeam);
      while (!options.signal?.aborted) {
        await arrivals.wait();
        if (options.signal?.aborted) break;
        const rescan = everyone;
        everyone = false;
        if (rescan && !options.team) {
          for (const added of await join(fed, options, running)) watchTeam(added, wakeTeam);
        }
        const due = rescan ? [...running.values()] : [...woken].flatMap((id) => running.get(id) ?? []);
        // Cleared before consuming: a team that hears something during its consume is consumed again.
        woken.clear();
        // A stop is heard between two teams: a pass over a thousand teams takes seconds.
        for (const team of due) {
          if (options.signal?.aborted) break;
          await consume(team);
        }
      }
    } finally {
      clearInterval(timer);
      options.signal?.removeEventListener('abort', arrivals.wake);
      options.wakeOn?.removeEventListener('wake', onWake);
    }
    return [...results.values()];
  } finally {
    for (const team of running.values()) stop(team);
  }
}

/** How often a `once` run reads again an inbox file that may still be being written. */
const SETTLE_POLL_MS = 100;

/**
 * A `once` run does not end while an inbox file it left alone may still be being written (empty or
 * cut-off JSON that changed a moment ago: a writer in place, or an empty ack planted beside a signal):
 * that file keeps its signal from being applied, and a run that exited now would leave it so without a
 * word. It is read again until it has been still for the settle time — then it is judged like any file
 * (a bad ack quarantined and its signal applied once) — and what is still left after that (a file that
 * keeps changing, or cannot be read) is a warning naming it.
 */
async function consumeUntilSettled(
  running: ReadonlyMap<string, RunningTeam>,
  results: Map<string, ConsumeResult>,
  consume: (team: RunningTeam) => Promise<void>,
  options: RunActorsOptions,
): Promise<void> {
  const deadline = Date.now() + (options.settleMs ?? SETTLE_MS) + 1_000;
  const waitingTeams = () =>
    [...running.values()].filter((team) => (results.get(team.consumer.team.domainId)?.waiting.length ?? 0) > 0);
  for (let waiting = waitingTeams(); waiting.length > 0; waiting = waitingTeams()) {
    if (Date.now() >= deadline || options.signal?.aborted) {
      for (const team of waiting) {
        const result = results.get(team.consumer.team.domainId)!;
        const warnings = result.waiting.map(
          (file) =>
            `left ${file.path} in the inbox: ${file.reason}, and it may still be being written (it changed ` +
            `within the last ${(options.settleMs ?? SETTLE_MS) / 1000} s, or could not be read); its signal ` +
            'waits — run again once its writer is done, or remove it',
        );
        await options.onResult?.({ ...result, steps: [], quarantined: [], restored: [], deferred: 0, warnings });
      }
      return;
    }
    await delay(SETTLE_POLL_MS);
    for (const team of waiting) await consume(team);
  }
}

const SKIPPABLE = new Set(['TEAM_BUSY', 'TEAM_ELSEWHERE', ...WORKSPACE_REFUSALS]);

function stop(team: RunningTeam): void {
  team.stopWatch?.();
  team.lease.release();
}

/** Take the lease of every team to run that is not running yet; returns the newly joined ones. */
async function join(
  fed: Federation,
  options: RunActorsOptions,
  running: Map<string, RunningTeam>,
): Promise<RunningTeam[]> {
  const joined: RunningTeam[] = [];
  for (const entry of await teamsToRun(fed.backend, options.team)) {
    if (running.has(entry.domainId)) continue;
    let lease: TeamLease;
    try {
      fed.workspace(entry);
      lease = await acquireTeamLease(entry, 'consumer');
    } catch (error) {
      // Running every team: one that another process runs (e.g. `fed launch`), one that works on another
      // machine (its actor runs there), or whose workspace is refused (outside the root, a link), is
      // skipped with the reason, not fatal.
      if (options.team || !(error instanceof RefusedError) || !SKIPPABLE.has(error.code)) throw error;
      options.onSkip?.(entry.domainId, error.message, error, entry);
      continue;
    }
    const onSteps = options.streamSteps
      ? (team: string, steps: LifecycleStep[], state: string) => reportSteps(team, steps, state, options)
      : undefined;
    const team: RunningTeam = {
      // Watching, every arrival wakes a consume (see below): a consume need not read again for what came meanwhile.
      consumer: new TeamInboxConsumer(fed, entry, { ...options, onSteps, consumesOnArrival: !options.once }),
      lease,
      stopWatch: undefined,
    };
    running.set(entry.domainId, team);
    joined.push(team);
  }
  return joined;
}

/** One batch's steps, streamed: the hooks are told, then `onResult` with a result holding just them. */
async function reportSteps(
  team: string,
  steps: LifecycleStep[],
  state: string,
  options: RunActorsOptions,
): Promise<void> {
  if (steps.length === 0) return;
  const result: ConsumeResult = {
    team,
    steps,
    acknowledged: 0,
    quarantined: [],
    restored: [],
    deferred: 0,
    waiting: [],
    state,
    warnings: [],
  };
  if (options.hooks) result.warnings.push(...(await notifyConsumed(options.hooks, result)));
  await options.onResult?.(result);
}

/** Wake the team's actor when a signal may have arrived in its inbox (a failing watch wakes it too: the rescan goes on). */
function watchTeam(team: RunningTeam, wakeTeam: (team: string) => void): void {
  const wake = () => wakeTeam(team.consumer.team.domainId);
  team.stopWatch = team.consumer.onArrival(wake, wake);
}
