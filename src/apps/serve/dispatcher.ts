import { RefusedError } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';
import { wakeLatch } from '../../infra/watch/wake-latch.js';
import { accountOf } from '../launch/account-limit.js';
import { LaunchFenced } from '../launch/launch-options.js';
import { STOPPED_FOR_PAUSE } from '../launch/judge/run-outcome.js';
import { teamLaunchConfig } from '../launch/team-agent.js';
import { refuseOverBudget } from '../launch/prepare/federation-budget.js';
import { readCurrentRun, readLastRun } from '../launch/run-records.js';
import type { Candidate } from '../run/team-judgement.js';
import { AccountRamp } from './account-ramp.js';
import type { ServeEvent } from './serve-events.js';
import type { TakenWork } from '../../ports/dispatch-queue.js';
import { workFor, workKey, type TeamWork } from './team-work.js';
import { ABORTED, untilAborted } from './until-aborted.js';

/** How one dispatched launch ended, as the dispatcher needs it. */
export type LaunchEnd =
  | { ok: true; result: Pick<LaunchResult, 'outcome' | 'state' | 'reason'> & { resumeAt: string | null } }
  | { ok: false; reason: string };

/** Run one team's launch until it ends; `signal` aborting stops its agent and pauses the team. */
export type LaunchOne = (candidate: Candidate, signal: AbortSignal) => Promise<LaunchEnd>;

export interface DispatcherOptions {
  /** At most this many agents at once. */
  capacity: number;
  launch: LaunchOne;
  onEvent: (event: ServeEvent) => void;
  /** The first retry of a team whose launch did not finish its work waits this long, doubling each time. */
  backoffMs?: number;
  ramp?: AccountRamp;
  /** Whether this server dispatches the team (its placement); default every team. Checked before every start. */
  serves?: (team: RegistryEntry) => Promise<boolean>;
  /** Unplaced teams, whose work goes through a queue every host's server takes from (JetStream). */
  unplaced?: UnplacedTeams;
  /** The config as it is now (its budget, each team's agent); default the federation's as loaded. */
  config?: () => FederationConfig;
  /**
   * Stopping, how long the launches it stopped get to record their end (default 10 s: the agent's own stop,
   * then a few writes); a launch still at it then is given up (`abandon`).
   */
  wrapUpMs?: number;
  /**
   * A launch stopping gave up on, its end not recorded in time (its broker unreachable, every write of it
   * retried for a minute): its agent is stopped now; the run it leaves in progress is the next start's to finish.
   */
  abandon?: (team: RegistryEntry) => Promise<void>;
}

/** How a stop left the teams whose agents it stopped (the others ended on their own, each said so). */
export interface StopSummary {
  /** Paused by their launches, to be resumed — their sessions too — by the next start. */
  paused: string[];
  /**
   * Their runs' ends not recorded (the launch gave up, or failed, while writing it): left in progress, for the
   * next start to record and go on from, as after a launcher that died.
   */
  owed: string[];
}

/** How the dispatcher hands unplaced teams' work to the shared queue and runs what it takes from it. */
export interface UnplacedTeams {
  /** Whether the team's work goes through the queue. */
  handles(team: RegistryEntry): boolean;
  offer(team: string, key: string): Promise<void>;
  /**
   * The team's work was taken here: it works here from now on (its workspace made here); undefined when
   * its workspace cannot be made here now.
   */
  claim(team: RegistryEntry): Promise<RegistryEntry | undefined>;
  /** Taken work not said to be going on for this long goes to another host. */
  ackWaitMs: number;
}

interface Running {
  controller: AbortController;
  /** Work of an unplaced team taken from the shared queue: settled when its launch ends. */
  taken?: TakenWork;
  /** Saying the taken work goes on, while the agent runs. */
  working?: NodeJS.Timeout;
  /** How the launch ended, once its end is told and settled. */
  done: Promise<LaunchEnd>;
  work: TeamWork;
  started: number;
}

/**
 * What the dispatcher holds now (the dashboard's Dispatch panel under `fed serve --ui`): the agents
 * running, and the teams with work waiting — for capacity, or until a time (a reset, a backoff, a ramp).
 */
export interface DispatchState {
  capacity: number;
  running: { team: string; work: TeamWork['kind']; subject: string | null; since: string }[];
  /** Oldest work first. */
  queued: {
    team: string;
    work: TeamWork['kind'];
    subject: string | null;
    /** When its work arrived. */
    since: string;
    /** `capacity`: it starts when an agent ends; `time`: not before `until`, for `why`. */
    waitsFor: 'capacity' | 'time';
    until: string | null;
    why: string;
  }[];
}

/** The longest a team whose launches keep ending unfinished waits before it is tried again. */
const MAX_BACKOFF_MS = 30 * 60_000;
/** How soon a dispatch pass that failed (the registry unreadable) is tried again. */
const RETRY_MS = 5_000;
/** How often a federation whose budget is spent is checked again (a person may have raised it). */
const BUDGET_RECHECK_MS = 60_000;
/** How long taken work whose team's workspace could not be made here waits before any host takes it again. */
const UNMADE_WORKSPACE_RETRY_MS = 30_000;
/** How long launches stopped by a stop get to record their end, by default. */
const WRAP_UP_MS = 10_000;

/**
 * `fed serve`'s dispatcher: which teams have work (judged again only when something about them changed),
 * and a launch for each, oldest work first, at most `capacity` at once, one per team. A team whose launch
 * ended without finishing or pausing for a known reset (a crash, an agent that exits early, a launch
 * refused) is tried again after a backoff that doubles, so a broken agent never spins.
 */
export class Dispatcher {
  private readonly running = new Map<string, Running>();
  private readonly queue = new Map<string, TeamWork>();
  private readonly backoff = new Map<string, { failures: number; until: number }>();
  /** The last waiting or skipped line told per team: said again only when it changes. */
  private readonly told = new Map<string, string>();
  private readonly ramp: AccountRamp;
  private readonly latch = wakeLatch();
  /** Woken when an agent ends: capacity for unplaced teams' work. */
  private readonly freed = wakeLatch();
  private dirtyAll = true;
  private readonly dirty = new Set<string>();
  /** Launches a stop gave up waiting for: nothing of their late end is told or settled. */
  private readonly abandoned = new Set<string>();
  private dispatching = true;
  /** Fenced (`fence`): no agent starts until `unfence`. */
  private fenced = false;
  private budgetRefusal: { message: string; until: number } | undefined;
  /** The last failure said, so one that repeats is said once. */
  private lastWarning: string | undefined;

  constructor(
    private readonly fed: Federation,
    private readonly options: DispatcherOptions,
  ) {
    this.ramp = options.ramp ?? new AccountRamp();
  }

  private config(): FederationConfig {
    return this.options.config?.() ?? this.fed.config;
  }

  /** Something about `team` (or, without one, about any team or the registry) changed: judge it again. */
  changed(team?: string): void {
    if (team === undefined) this.dirtyAll = true;
    else this.dirty.add(team);
    this.latch.wake();
  }

  /** The teams whose agents run now. */
  runningTeams(): string[] {
    return [...this.running.keys()];
  }

  queuedCount(): number {
    return this.queue.size;
  }

  /** A read-only copy of what it holds now. */
  state(): DispatchState {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      capacity: this.options.capacity,
      running: [...this.running].map(([team, { work, started }]) => ({
        team,
        work: work.kind,
        subject: work.subject,
        since: iso(started),
      })),
      queued: [...this.queue.values()]
        .sort((a, b) => a.since - b.since)
        .map((work) => {
          const at = this.startAt(work);
          const later = at > now;
          return {
            team: work.candidate.team.domainId,
            work: work.kind,
            subject: work.subject,
            since: iso(work.since),
            waitsFor: later ? 'time' : 'capacity',
            until: later ? iso(at) : null,
            why: later
              ? this.whyLater(work, at)
              : `for capacity (${this.running.size} of ${this.options.capacity} running)`,
          };
        }),
    };
  }

  /** Judge and dispatch until `signal` aborts; then start nothing more (running launches go on: see `stop`). */
  async run(signal: AbortSignal): Promise<void> {
    const wake = () => this.latch.wake();
    signal.addEventListener('abort', wake);
    try {
      while (!signal.aborted) {
        try {
          // A read an unreachable broker holds (until it is back) is not waited for once stopping: no launch
          // starts after dispatching ended (startReady checks), and the next start judges every team again.
          const step = this.judgeChanged().then(() => (signal.aborted ? undefined : this.startReady()));
          if ((await untilAborted(step, signal)) === ABORTED) break;
        } catch (error) {
          // The registry unreadable for a moment (a person editing it, a full disk): said, tried again soon.
          this.dirtyAll = true;
          this.warnOnce(`teams are not dispatched for now: ${(error as Error).message}`);
          await this.latch.wait(RETRY_MS);
          continue;
        }
        this.lastWarning = undefined;
        await this.latch.wait(this.nextTimerMs());
      }
    } finally {
      this.dispatching = false;
      signal.removeEventListener('abort', wake);
    }
  }

  /**
   * Stop: wait up to `graceMs` for the running agents to finish, then stop the rest: each launch pauses its
   * team, to resume its session later, within `wrapUpMs`. `now` cuts the grace short — or, once the grace is
   * over, the wrap-up. A launch that has not ended by then (its writes held by an unreachable broker) is
   * given up: its agent stopped, its run left owed to the next start.
   */
  async stop(graceMs: number, now: AbortSignal): Promise<StopSummary> {
    this.dispatching = false;
    const settled = Promise.all([...this.running.values()].map((r) => r.done));
    await waitUntil(settled, graceMs, now);
    const stopping = [...this.running.values()];
    const ends = new Map<Running, LaunchEnd>();
    for (const running of stopping) {
      running.controller.abort();
      void running.done.then((end) => ends.set(running, end));
    }
    // A second signal that cut the grace short has been heard: the wrap-up still gets its few seconds.
    await waitUntil(settled, this.options.wrapUpMs ?? WRAP_UP_MS, now.aborted ? undefined : now);
    // Their agents are stopped side by side: each may take its grace to exit.
    await Promise.all(stopping.filter((running) => !ends.has(running)).map((running) => this.abandon(running)));
    const summary: StopSummary = { paused: [], owed: [] };
    for (const running of stopping) {
      const team = running.work.candidate.team;
      const end = ends.get(running);
      // Fenced (its host out of touch), its team is left as it is for whichever host runs it next: neither
      // paused nor this host's to resume.
      if (running.controller.signal.reason instanceof LaunchFenced) continue;
      if (end?.ok && end.result.outcome === 'paused' && end.result.state === 'paused')
        summary.paused.push(team.domainId);
      // Its end not recorded: the run in progress is still there, what the next start finishes (workFor: owed).
      else if (readCurrentRun(team.location)) summary.owed.push(team.domainId);
      // Given up after its end was recorded (a hook, its files' last copy): as it recorded it.
      else if (!end && readLastRun(team.location)?.stateAfter === 'paused') summary.paused.push(team.domainId);
    }
    return summary;
  }

  private async abandon(running: Running): Promise<void> {
    const team = running.work.candidate.team;
    this.abandoned.add(team.domainId);
    this.running.delete(team.domainId);
    // Its taken work is said to go on no more: it goes back to the queue after its ack wait.
    clearInterval(running.working);
    await this.options.abandon?.(team);
  }

  /**
   * Fencing (host-fence.ts): this host may soon be taken for lost, so its agents are stopped — each launch
   * aborted with `reason`, which leaves its team as it is for whichever host runs it next — and none starts
   * until `unfence`. Returns the teams whose agents are stopped.
   */
  fence(reason: LaunchFenced): string[] {
    this.fenced = true;
    for (const running of this.running.values()) running.controller.abort(reason);
    return [...this.running.keys()];
  }

  /** The fence lifted (the host heard again): every team is judged again, and dispatched as before. */
  unfence(): void {
    this.fenced = false;
    this.changed();
  }

  private async judgeChanged(): Promise<void> {
    const registry = await this.fed.backend.registry.read();
    const judged = this.dirtyAll ? registry.teams : registry.teams.filter((t) => this.dirty.has(t.domainId));
    if (this.dirtyAll) {
      // Teams removed from the registry leave the queue.
      const known = new Set(registry.teams.map((t) => t.domainId));
      for (const team of this.queue.keys()) if (!known.has(team)) this.queue.delete(team);
    }
    this.dirtyAll = false;
    this.dirty.clear();
    for (const team of judged) {
      if (this.running.has(team.domainId)) continue;
      if (this.options.unplaced?.handles(team)) {
        // Any host's: its work is queued for whichever server has capacity (perhaps this one).
        this.queue.delete(team.domainId);
        await this.offer(team, this.options.unplaced);
        continue;
      }
      if (!(await this.serves(team))) {
        // Placed on another host: its server dispatches it.
        this.queue.delete(team.domainId);
        continue;
      }
      await this.judge(team);
    }
  }

  private async judge(team: RegistryEntry): Promise<void> {
    const judged = await workFor(this.fed, team);
    if (judged.work) {
      this.queue.set(team.domainId, judged.work);
      return;
    }
    this.queue.delete(team.domainId);
    this.told.delete(team.domainId);
    // Only what a person should look at is said: a team whose files cannot be read. Teams without work
    // (no mission, finished, paused by hand, waiting on a review) are the normal quiet case.
    if (judged.skip.startsWith('its files cannot be read')) this.tell(team.domainId, 'skipped', judged.skip, null);
  }

  private async offer(team: RegistryEntry, unplaced: UnplacedTeams): Promise<void> {
    const { work } = await workFor(this.fed, team);
    if (work) await unplaced.offer(team.domainId, workKey(work));
  }

  /** Whether an agent more may start now. */
  hasCapacity(): boolean {
    return this.dispatching && !this.fenced && this.running.size < this.options.capacity;
  }

  /** Resolves once an agent ended (or after `ms`). */
  async capacityFreed(ms: number): Promise<void> {
    await this.freed.wait(ms);
  }

  /**
   * Run an unplaced team's work taken from the shared queue: judged again here (another host may have
   * done it meanwhile), the team claimed, started; the work is acknowledged when the launch ends, or
   * given back to be taken again after a backoff (by any host) when it ended unfinished.
   */
  async startTaken(taken: TakenWork): Promise<void> {
    const unplaced = this.options.unplaced;
    if (!unplaced || !this.hasCapacity() || this.running.has(taken.team)) return taken.retry(1_000);
    const known = (await this.fed.backend.registry.read()).teams.find((t) => t.domainId === taken.team);
    // Removed, or placed on a host by a person since: its queued work is no one's to run from the queue.
    if (!known || !unplaced.handles(known)) return taken.done();
    const { work } = await workFor(this.fed, known);
    if (!work) return taken.done();
    if (work.notBefore > Date.now()) return taken.retry(work.notBefore - Date.now());
    const here = await unplaced.claim(known);
    // Its workspace cannot be made here now (a commit not pushed yet): given back, for any host, in a while.
    if (!here) return taken.retry(UNMADE_WORKSPACE_RETRY_MS);
    const fresh = await workFor(this.fed, here);
    if (!fresh.work) return taken.done();
    // Fenced or stopping while it was judged (those reads are what an outage holds): none starts now.
    if (!this.dispatching || this.fenced) return taken.retry(1_000);
    this.start(fresh.work, taken);
  }

  private async serves(team: RegistryEntry): Promise<boolean> {
    return (await this.options.serves?.(team)) ?? true;
  }

  /** Start every queued team whose time has come, oldest work first, while there is capacity. */
  private async startReady(): Promise<void> {
    const now = Date.now();
    const waiting = [...this.queue.values()].sort((a, b) => a.since - b.since);
    if (waiting.length > 0 && !(await this.budgetAllows(now))) return;
    for (const work of waiting) {
      if (!this.dispatching || this.fenced) return;
      const team = work.candidate.team.domainId;
      const at = this.startAt(work);
      if (at > now) {
        this.tell(team, 'waiting', this.whyLater(work, at), new Date(at).toISOString());
        continue;
      }
      if (this.running.size >= this.options.capacity) {
        this.tell(team, 'waiting', `for capacity (${this.running.size} of ${this.options.capacity} running)`, null);
        continue;
      }
      // Judged again right before it starts: a person may have paused, finished or moved it since.
      const entry = await this.fed.team(team);
      const fresh = (await this.serves(entry)) ? await workFor(this.fed, entry) : undefined;
      if (!fresh?.work) {
        this.queue.delete(team);
        continue;
      }
      // Fenced or stopping while it was judged: it stays queued.
      if (!this.dispatching || this.fenced) return;
      this.start(fresh.work);
    }
  }

  /** When a team with work may start (ms): its reset, its backoff, its account's ramp. */
  private startAt(work: TeamWork): number {
    const backoff = this.backoff.get(work.candidate.team.domainId)?.until ?? 0;
    const account = this.rampAccount(work);
    const ramp = account ? this.ramp.slot(account, work.notBefore) : work.notBefore;
    return Math.max(backoff, ramp);
  }

  private whyLater(work: TeamWork, at: number): string {
    const team = work.candidate.team.domainId;
    const backoff = this.backoff.get(team);
    if (backoff && backoff.until >= at)
      return `its last ${backoff.failures === 1 ? 'launch' : `${backoff.failures} launches`} ended with the work unfinished; tried again`;
    const account = this.rampAccount(work);
    if (account && at > work.notBefore)
      return `account ${account}'s rate limit has reset; its teams resume ${Math.round(this.ramp.gapOf(account) / 1000)} s apart`;
    return 'a rate limit; resumed at its reset';
  }

  /** The CLI account of a team resuming from a rate limit: the teams of its ramp. */
  private rampAccount(work: TeamWork): string | undefined {
    if (work.kind !== 'resume' || !work.notBefore) return undefined;
    const team = work.candidate.team;
    const preset = readLastRun(team.location)?.preset;
    return preset ? accountOf(teamLaunchConfig(this.config(), team.domainId), preset) : undefined;
  }

  private start(work: TeamWork, taken?: TakenWork): void {
    const team = work.candidate.team.domainId;
    this.queue.delete(team);
    this.told.delete(team);
    const account = this.rampAccount(work);
    if (account) this.ramp.started(account, Date.now());
    const controller = new AbortController();
    const started = Date.now();
    // Taken work is said to be going on while the agent runs: a server that dies goes silent, and another takes it.
    const working = taken && setInterval(() => taken.working(), Math.max(200, this.options.unplaced!.ackWaitMs / 3));
    const done = this.options
      .launch(work.candidate, controller.signal)
      .catch((error: unknown): LaunchEnd => ({ ok: false, reason: (error as Error).message }))
      .then(async (end) => {
        clearInterval(working);
        // Given up by the stop, which said so: its late end (the broker closed under it) is not this server's news.
        if (this.abandoned.has(team)) return end;
        const fenced = controller.signal.reason instanceof LaunchFenced;
        const retryInMs = this.ended(team, end, started, account, fenced);
        // Settled before the team is judged again: what is left of its work is then offered anew.
        if (taken) await this.settle(taken, retryInMs);
        this.changed(team);
        this.freed.wake();
        return end;
      });
    this.running.set(team, { controller, done, work, started, taken, working });
    this.options.onEvent({
      kind: 'dispatched',
      at: new Date(started).toISOString(),
      team,
      work: work.kind,
      subject: work.subject,
      running: this.running.size,
      queued: this.queue.size,
    });
  }

  /** Taken work: acknowledged, or given back to be taken again after its backoff (by any host). */
  private async settle(taken: TakenWork, retryInMs: number | undefined): Promise<void> {
    try {
      if (retryInMs === undefined || !this.dispatching) await taken.done();
      else taken.retry(retryInMs);
    } catch (error) {
      this.warnOnce(
        `${taken.team}: its work could not be acknowledged (another host may run it again): ${(error as Error).message}`,
      );
    }
  }

  /** Bookkeeping of a launch's end; returns the backoff (ms) before its team is tried again, if it is. */
  private ended(
    team: string,
    end: LaunchEnd,
    started: number,
    account: string | undefined,
    fenced: boolean,
  ): number | undefined {
    this.running.delete(team);
    const at = new Date().toISOString();
    const durationMs = Date.now() - started;
    if (!end.ok) {
      this.options.onEvent({
        kind: 'ended',
        at,
        team,
        outcome: 'error',
        state: null,
        reason: end.reason,
        resumeAt: null,
        durationMs,
      });
    } else {
      const { outcome, state, reason, resumeAt } = end.result;
      this.options.onEvent({ kind: 'ended', at, team, outcome, state, reason, resumeAt, durationMs });
    }
    const resumeAt = end.ok ? end.result.resumeAt : null;
    if (account) this.ramp.ended(account, resumeAt !== null && Date.parse(resumeAt) > Date.now());
    if (fenced) {
      // Stopped because this host could not hold the team, no fault of the team's: nothing to back off from,
      // and its taken work goes back to the queue at once, for any host.
      this.backoff.delete(team);
      return 0;
    }
    const finished = end.ok && (end.result.outcome === 'complete' || end.result.outcome === 'waiting');
    // Paused until a known reset, paused by a person (their resume relaunches it at once), or failed (a
    // person retries it): nothing to back off from.
    const waitsForReset = end.ok && resumeAt !== null;
    const pausedByPerson = end.ok && end.result.outcome === 'paused' && end.result.reason === STOPPED_FOR_PAUSE;
    if (finished || waitsForReset || pausedByPerson || (end.ok && end.result.outcome === 'failed'))
      this.backoff.delete(team);
    else if (this.dispatching) {
      const failures = (this.backoff.get(team)?.failures ?? 0) + 1;
      const base = this.options.backoffMs ?? 30_000;
      const waitMs = Math.min(MAX_BACKOFF_MS, base * 2 ** (failures - 1));
      this.backoff.set(team, { failures, until: Date.now() + waitMs });
      return waitMs;
    }
    return undefined;
  }

  /** Whether the federation's budget lets an agent start; said once while it does not. */
  private async budgetAllows(now: number): Promise<boolean> {
    if (this.budgetRefusal && this.budgetRefusal.until > now) return false;
    try {
      await refuseOverBudget(this.fed, this.config());
      this.budgetRefusal = undefined;
      return true;
    } catch (error) {
      if (!(error instanceof RefusedError)) throw error;
      if (this.budgetRefusal?.message !== error.message)
        this.options.onEvent({ kind: 'warning', at: new Date(now).toISOString(), text: error.message });
      this.budgetRefusal = { message: error.message, until: now + BUDGET_RECHECK_MS };
      return false;
    }
  }

  /** How long until a queued team's time comes (a reset, a backoff, the budget's next check), if any. */
  private nextTimerMs(): number | undefined {
    const now = Date.now();
    const times = [...this.queue.values()].map((work) => this.startAt(work)).filter((at) => at > now);
    if (this.budgetRefusal) times.push(this.budgetRefusal.until);
    // Timers are capped (a far reset would overflow one); waking early only judges the queue again.
    return times.length ? Math.min(Math.max(0, Math.min(...times) - now), 60_000) : undefined;
  }

  private warnOnce(text: string): void {
    if (this.lastWarning === text) return;
    this.lastWarning = text;
    this.options.onEvent({ kind: 'warning', at: new Date().toISOString(), text });
  }

  private tell(team: string, kind: 'waiting' | 'skipped', why: string, until: string | null): void {
    const line = `${kind}:${why}:${until}`;
    if (this.told.get(team) === line) return;
    this.told.set(team, line);
    const at = new Date().toISOString();
    this.options.onEvent(kind === 'waiting' ? { kind, at, team, why, until } : { kind, at, team, reason: why });
  }
}

/** Until `settled`, `ms` at most, or `cut` aborts. */
async function waitUntil(settled: Promise<unknown>, ms: number, cut: AbortSignal | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onCut: (() => void) | undefined;
  await Promise.race([
    settled,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      onCut = resolve;
      if (cut?.aborted) resolve();
      else cut?.addEventListener('abort', onCut, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onCut) cut?.removeEventListener('abort', onCut);
}
