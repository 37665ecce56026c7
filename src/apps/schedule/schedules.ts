import GithubSlugger from 'github-slugger';
import { InvalidInputError, RefusedError } from '../../core/errors.js';
import type { FederationRecord } from '../../core/schema/federation-journal.js';
import { readCron, scheduleSchema, type Schedule } from '../../core/schema/schedule.js';
import { describeValue, parseGiven } from '../../core/schema/problems.js';
import { findTeam, getTeam, statusOf } from '../../core/find-team.js';
import type { Registry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { readFederationJournal } from '../../engine/federation/federation-journal.js';
import { editConfigFile } from '../../infra/config/edit-config.js';
import { commitOf, cronOf, nextTick } from './schedule-triggers.js';

/** `fed schedule add`: what a person gives; the id defaults to a slug of the subject. */
export type NewSchedule = Omit<Schedule, 'id' | 'since'> & { id?: string };

/**
 * `fed schedule add`: a schedule appended to `federate.config.json` (which a running `fed serve` follows),
 * checked whole first — its team (registered, not archived), its cron expression read by the cron library
 * (the config's schema reads it so) and one that fires, or its git ref one the codebase has — so a refused
 * one changes nothing. Its `since` is now: a tick between now and the next server's start fires then, once.
 */
export async function addSchedule(
  fed: Federation,
  input: NewSchedule,
  /** What the caller calls each field (`timezone` → `--tz`), for the refusal of a bad one; default the field's name. */
  names: Readonly<Partial<Record<keyof NewSchedule, string>>> = {},
): Promise<Schedule> {
  // Checked as given first — the cron expression read whole, as the config's schema reads it — so a bad
  // field is refused as the caller's input, not as a problem of the config (an id left out is made below
  // from the subject, always valid).
  parseGiven(scheduleSchema, { ...input, id: input.id ?? 'unnamed' }, names);
  // An expression of days that do not exist (30 February) reads well and has no tick: `fed schedule list`
  // would show it next "never". Checked here, not by every config load: it costs a search of the calendar.
  if (input.cron !== undefined && nextTick(readCron(input.cron, input.timezone), fed.now()) === undefined)
    throw new InvalidInputError(
      `${names.cron ?? 'cron'}: ${describeValue(input.cron)} never fires: it names no day that exists (like 30 February); give a cron expression like "0 3 * * 1-5"`,
    );
  // A ref the codebase does not have would never move: fed serve would wait on it without a word.
  if (input.onRef !== undefined && commitOf(fed.root, input.onRef) === undefined)
    throw new InvalidInputError(
      `${names.onRef ?? 'onRef'}: the codebase at ${fed.root} has no ref ${describeValue(input.onRef)} (git rev-parse finds no commit for it); give a branch or tag it has, like "main" (git branch --all and git tag list them)`,
    );
  const team = getTeam(await fed.backend.registry.read(), input.to);
  // fed serve could never send its directive: it would only warn that it cannot.
  if (statusOf(team) === 'archived')
    throw new RefusedError(
      'TEAM_ARCHIVED',
      `team "${team.domainId}" is archived; archived teams receive no signals, so a schedule to it would never fire — schedule another team`,
    );
  let id = '';
  const config = await editConfigFile(fed.root, (raw) => {
    const schedules = Array.isArray(raw.schedules) ? (raw.schedules as Record<string, unknown>[]) : [];
    // Without an id, a schedule that would send this very directive on this very trigger is this one
    // added before (a re-run of a command whose first run landed, killed or not): a second under
    // another id would send the team the directive twice each time.
    const same = input.id === undefined && schedules.find((s) => sameDirectiveAndTrigger(s, input, team.domainId));
    if (same)
      throw new RefusedError(
        'SCHEDULE_EXISTS',
        `schedule "${String(same.id)}" sends this directive to ${team.domainId} on this trigger already (fed schedule list shows it); a second one would send it twice — give --id to add one anyway`,
      );
    id = input.id ?? freeId(input.subject, new Set(schedules.map((s) => String(s.id))));
    if (schedules.some((s) => s.id === id))
      throw new RefusedError(
        'SCHEDULE_EXISTS',
        `a schedule "${id}" exists already; choose another --id, or remove it first: fed schedule remove ${id}`,
      );
    const added = { ...input, id, to: team.domainId, since: fed.now().toISOString() };
    raw.schedules = [...schedules, JSON.parse(JSON.stringify(added)) as object];
  });
  return config.schedules!.find((s) => s.id === id)!;
}

/** `fed schedule remove`: the schedule taken out of the config; its firings stay in the journal. */
export async function removeSchedule(fed: Federation, id: string): Promise<Schedule> {
  let removed: Schedule | undefined;
  await editConfigFile(fed.root, (raw) => {
    const schedules = Array.isArray(raw.schedules) ? (raw.schedules as Schedule[]) : [];
    removed = schedules.find((s) => s.id === id);
    if (!removed)
      throw new RefusedError(
        'UNKNOWN_SCHEDULE',
        `no schedule "${id}" in federate.config.json (${schedules.length ? `its schedules: ${schedules.map((s) => s.id).join(', ')}` : 'it has none'}); list them with: fed schedule list`,
      );
    raw.schedules = schedules.filter((s) => s.id !== id);
    if ((raw.schedules as Schedule[]).length === 0) delete raw.schedules;
  });
  return removed!;
}

export interface ScheduleView {
  schedule: Schedule;
  /** A cron schedule's next tick (ISO); a ref schedule's commit now. */
  next: string | null;
  commit: string | null;
  /** Its last firing, from the federation journal. */
  lastFired: { at: string; signalId: string; due: string; commit?: string } | null;
  /** Why `fed serve` never sends its directive (`teamProblem`), else null. */
  neverSent: string | null;
}

/**
 * Why `fed serve` would never send a schedule's directive: its team is not in the registry (removed, or
 * a config written by hand) or is archived (archived teams receive no signals); undefined when it is sent.
 * `fed schedule list`, the dashboard and `fed doctor` say it.
 */
export function teamProblem(registry: Registry, schedule: Schedule): string | undefined {
  const team = findTeam(registry, schedule.to);
  if (team === undefined) return `"${schedule.to}" is no team of this federation`;
  if (statusOf(team) === 'archived') return `team "${team.domainId}" is archived (archived teams receive no signals)`;
  return undefined;
}

/**
 * `fed schedule list`: every schedule, when it fires next and when it last fired. `schedules`: those of
 * the config as it is now, for a process that outlives an edit of it (the dashboard); default the loaded one's.
 */
export async function listSchedules(
  fed: Federation,
  schedules: readonly Schedule[] = fed.config.schedules ?? [],
): Promise<ScheduleView[]> {
  const last = new Map<string, Extract<FederationRecord, { kind: 'scheduled' }>>();
  if (schedules.length)
    for (const record of await readFederationJournal(fed.backend))
      if (record.kind === 'scheduled') last.set(record.schedule, record);
  const registry = schedules.length ? await fed.backend.registry.read() : undefined;
  return schedules.map((schedule) => {
    const fired = last.get(schedule.id);
    return {
      schedule,
      next: schedule.cron ? (nextTick(cronOf(schedule), fed.now())?.toISOString() ?? null) : null,
      commit: schedule.onRef ? (commitOf(fed.root, schedule.onRef) ?? null) : null,
      lastFired: fired
        ? { at: fired.at, signalId: fired.signalId, due: fired.due, ...(fired.commit ? { commit: fired.commit } : {}) }
        : null,
      neverSent: (registry && teamProblem(registry, schedule)) ?? null,
    };
  });
}

/** How a schedule fires, in words: `on "0 3 * * *" (Europe/Paris)`, `when main moves`. */
export function describeTrigger(schedule: Schedule): string {
  return schedule.cron
    ? `on "${schedule.cron}"${schedule.timezone ? ` (${schedule.timezone})` : ''}`
    : `when ${schedule.onRef} moves`;
}

/** When a schedule fires next, in words: a cron one's next tick, a ref one's commit it moves on from; never, and why, when its team is gone or archived. */
export function describeNext(view: ScheduleView): string {
  if (view.neverSent) return `never: ${view.neverSent}`;
  if (view.schedule.cron) return view.next ?? 'never';
  return view.commit ? `after ${view.commit.slice(0, 12)}` : `${view.schedule.onRef} not found`;
}

/** What `fed schedule add` (and the dashboard) says of a schedule it added. */
export function addedMessage(added: Schedule): string {
  return `added schedule ${added.id}: a directive to ${added.to} ${describeTrigger(added)}; fed serve sends it`;
}

/** What `fed schedule remove` (and the dashboard) says of a schedule it removed. */
export function removedMessage(removed: Schedule): string {
  return `removed schedule ${removed.id} (a directive to ${removed.to} ${describeTrigger(removed)})`;
}

/** A slug of the subject no other schedule has (`refresh-docs`, `refresh-docs-1`, …), at most 64 characters. */
/** Whether a schedule of the config sends the same directive on the same trigger as `input` would to `to`. */
function sameDirectiveAndTrigger(schedule: Record<string, unknown>, input: NewSchedule, to: string): boolean {
  const fields = ['subject', 'body', 'cron', 'timezone', 'onRef'] as const;
  return schedule.to === to && fields.every((field) => schedule[field] === input[field]);
}

function freeId(subject: string, taken: ReadonlySet<string>): string {
  const base =
    new GithubSlugger()
      .slug(subject)
      .replace(/[^a-z0-9-]/g, '')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 56) || 'schedule';
  let id = base;
  for (let n = 1; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}
