import { v5 as uuidv5 } from 'uuid';
import type { Cron } from 'croner';
import type { Schedule } from '../../core/schema/schedule.js';
import type { FederationRecord } from '../../core/schema/federation-journal.js';
import type { Federation } from '../../engine/context.js';
import { readFederationJournal, recordFederationEvent } from '../../engine/federation/federation-journal.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import type { ServeEvent } from './serve-events.js';
import { commitOf, cronOf, nextTick, watchRefs } from '../schedule/schedule-triggers.js';

/** Firings' signal ids are derived from the schedule and its tick: a firing retried after a crash sends no second signal. */
const SCHEDULE_NAMESPACE = '0c9b6f1e-2d4a-4f7b-9e3c-5a8d1b6e7f20';
/** A timer is never set further than this ahead (Node's limit is ~24.8 days); a far tick re-arms. */
const MAX_TIMER_MS = 6 * 3_600_000;

type Fired = Extract<FederationRecord, { kind: 'scheduled' }>;

interface Armed {
  schedule: Schedule;
  stop(): void;
}

/**
 * `fed serve`'s schedules (config `schedules`): each sends its directive from meta on its cron ticks, or
 * when its git ref moves. What already fired is read from the federation journal at start: a cron tick that
 * fell due while nothing served fires once then (never once per missed tick), and a ref that moved while
 * nothing served fires once. `update` takes the schedules a changed config holds. What keeps a schedule
 * from sending (its team archived, its ref gone) is said once, and again only when it changes.
 */
export class ScheduleRunner {
  private readonly armed = new Map<string, Armed>();
  private last = new Map<string, Fired>();
  /** Firings run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  /** The problem last said of each schedule: one that stays is said once, again only when it changes. */
  private readonly problems = new Map<string, string>();

  constructor(
    private readonly fed: Federation,
    private readonly onEvent: (event: ServeEvent) => void,
  ) {}

  /** Read what fired before, then arm `schedules` (of a loaded config: their cron expressions were read whole). */
  async start(schedules: readonly Schedule[]): Promise<void> {
    for (const record of await readFederationJournal(this.fed.backend))
      if (record.kind === 'scheduled') this.last.set(record.schedule, record);
    this.update(schedules);
  }

  /** Arm the schedules now configured: new and changed ones (re)armed, removed ones stopped. */
  update(schedules: readonly Schedule[]): void {
    const wanted = new Map(schedules.map((s) => [s.id, s]));
    for (const [id, armed] of this.armed) {
      if (JSON.stringify(wanted.get(id)) === JSON.stringify(armed.schedule)) wanted.delete(id);
      else {
        armed.stop();
        this.armed.delete(id);
        // Changed or removed: what was said of it was of the schedule it was.
        this.problems.delete(id);
      }
    }
    for (const schedule of wanted.values()) {
      const stop = schedule.cron ? this.armCron(schedule) : this.armRef(schedule);
      this.armed.set(schedule.id, { schedule, stop });
    }
  }

  /** Stop every schedule; resolves once a firing under way is done. */
  async stop(): Promise<void> {
    for (const armed of this.armed.values()) armed.stop();
    this.armed.clear();
    await this.queue;
  }

  private armCron(schedule: Schedule): () => void {
    const cron: Cron = cronOf(schedule);
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const arm = () => {
      if (stopped) return;
      const now = this.fed.now();
      const next = nextTick(cron, now);
      if (!next) return;
      const wait = next.getTime() - now.getTime();
      timer = setTimeout(
        () => (wait > MAX_TIMER_MS ? arm() : this.fire(schedule, next.toISOString()).then(arm)),
        Math.min(wait, MAX_TIMER_MS),
      );
    };
    // A tick after the last firing (or since the schedule was added) that came while nothing served.
    const base = this.last.get(schedule.id)?.at ?? schedule.since;
    const missed = base === undefined ? undefined : nextTick(cron, new Date(base));
    if (missed && missed.getTime() <= this.fed.now().getTime())
      void this.fire(schedule, missed.toISOString()).then(arm);
    else arm();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  private armRef(schedule: Schedule): () => void {
    const ref = schedule.onRef!;
    // Where the ref was when it last fired; with no firing yet, where it is now (the baseline).
    let seen = this.last.get(schedule.id)?.commit ?? commitOf(this.fed.root, ref);
    // A config written by hand (fed schedule add refuses such a ref) or a branch deleted since.
    const missing = `schedule ${schedule.id} waits for git ref ${ref}, which the codebase at ${this.fed.root} does not have; it fires once the ref names a commit — or give it a ref the codebase has: fed schedule remove ${schedule.id}, then add it again`;
    const check = () => {
      const now = commitOf(this.fed.root, ref);
      if (now === undefined) return this.problem(schedule, missing);
      if (this.problems.get(schedule.id) === missing) this.problems.delete(schedule.id);
      if (now === seen) return;
      seen = now;
      void this.fire(schedule, this.fed.now().toISOString(), now);
    };
    check();
    return watchRefs(this.fed.root, check);
  }

  /** Send the schedule's directive for `due` (and `commit`), journal it, tell it; a failure is a warning. */
  private fire(schedule: Schedule, due: string, commit?: string): Promise<void> {
    const fired = async () => {
      const id = uuidv5(`${schedule.id}|${due}|${commit ?? ''}`, SCHEDULE_NAMESPACE);
      const at = this.fed.now().toISOString();
      try {
        const sent = await sendSignal(this.fed, {
          to: schedule.to,
          type: 'directive',
          subject: schedule.subject,
          body: schedule.body ?? schedule.subject,
          id,
        });
        const record = (await recordFederationEvent(
          this.fed.backend,
          {
            team: sent.message.to,
            kind: 'scheduled',
            schedule: schedule.id,
            signalId: sent.message.id,
            subject: schedule.subject,
            due,
            ...(commit ? { commit } : {}),
          },
          new Date(at),
        )) as Fired;
        this.last.set(schedule.id, record);
        this.problems.delete(schedule.id);
        this.onEvent({
          kind: 'fired',
          at,
          schedule: schedule.id,
          team: record.team,
          signalId: id,
          subject: schedule.subject,
          due,
        });
      } catch (error) {
        const again = schedule.cron ? 'on its next tick' : `when ${schedule.onRef} moves again`;
        this.problem(
          schedule,
          `schedule ${schedule.id} did not send its directive to ${schedule.to}: ${(error as Error).message}; it tries again ${again} (said again only if this changes)`,
        );
      }
    };
    this.queue = this.queue.then(fired);
    return this.queue;
  }

  /** Say what keeps the schedule from sending: once, and again only when it changes (not on every tick). */
  private problem(schedule: Schedule, text: string): void {
    if (this.problems.get(schedule.id) === text) return;
    this.problems.set(schedule.id, text);
    this.onEvent({ kind: 'warning', at: this.fed.now().toISOString(), text });
  }
}
