import { existsSync, renameSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import {
  lifecycleEntryFor,
  loadTeamLifecycle,
  settleTeamLifecycle,
  withStateLock,
} from '../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../engine/actors/state-of.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { initialPersistedSnapshot } from '../../engine/actors/lifecycle-transition.js';
import { RefusedError } from '../../core/errors.js';
import { recordFederationEvent } from '../../engine/federation/federation-journal.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import type { SignalEntry } from '../../ports/signal-transport.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import { newestSince, signalsSince } from '../../engine/messaging/newest-since.js';
import { signalCommand } from '../../engine/actors/signal-events.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { Federation } from '../../engine/context.js';

/**
 * Runs of a team's lifecycle over time. A lifecycle that ended (failed, or complete) is not the end of the
 * team: `fed team retry` starts a new run from the start of the lifecycle with the same mission, and a new
 * mission directive to a complete team starts one with that mission. The run that ended is kept, never
 * overwritten: the lifecycle store keeps its state and journal (file-signal-v1: `.fed/history/run-<n>/`),
 * and its deliverable is renamed `deliverable.run-<n>.md`. The new lifecycle keeps the dedupe record (old signals are never applied
 * again) and the journal's sequence numbers go on where they were.
 */
export interface NewRun {
  team: string;
  /** The number of the run that starts now (the first run is 1). */
  run: number;
  mission: { subject: string; body: string };
  /**
   * The mission is a directive meta sent since the ended run ended (a complete team's new mission, a newer
   * one to a failed team), not the ended run's sent again.
   */
  missionSentSince: boolean;
  /** The state the new run starts in (the lifecycle machine's first), and since when. */
  state: string;
  since: string;
  /** What of the earlier run was kept where, relative to the workspace. */
  keptAs: string[];
}

/**
 * `fed team retry`: a failed team starts again from the start of its lifecycle, with the same mission (one
 * that failed before it had one: with meta's oldest mission directive waiting in its inbox); a complete team that was sent a new mission directive starts a run with that one.
 */
export async function retryTeam(fed: Federation, name: string, config: FederationConfig): Promise<NewRun> {
  const { backend } = fed;
  const team = getTeam(await backend.registry.read(), name);
  lifecycleEntryFor(team);
  // The ended run's deliverable is kept beside it, in the workspace: a retry is made where that is (a team
  // of a federation across machines that works elsewhere is TEAM_ELSEWHERE).
  fed.workspace(team);
  if (statusOf(team) !== 'active') {
    throw new RefusedError(
      'TEAM_NOT_ACTIVE',
      `team "${team.domainId}" is ${statusOf(team)}; ${statusOf(team) === 'paused' ? `resume it first: fed team resume ${team.domainId}` : 'archived teams are not run again'}`,
    );
  }
  const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
  const state = stateOf(lifecycle.snapshot);
  if (state === 'complete') {
    const next = await startRunForNewMission(fed, team, config);
    if (next) return next;
    // None started here: no new mission, or another process started the run it asked for meanwhile.
    if (stateOf((await loadTeamLifecycle(team, backend.lifecycles)).snapshot) !== 'complete')
      throw startedMeanwhile(team);
  }
  if (state !== 'failed') {
    const hint =
      state === 'complete'
        ? ` — to give a complete team new work, send it a new mission: fed signal send --to ${team.domainId} --type directive --subject "<mission>"`
        : '';
    throw new RefusedError('NOT_FAILED', `team "${team.domainId}" is ${state}; only a failed team is retried${hint}`);
  }
  const noMission = new RefusedError(
    'NO_MISSION',
    `team "${team.domainId}" failed before it had a mission, so a new run would have none; send it one: fed signal send --to ${team.domainId} --type directive --subject "<mission>", then retry: fed team retry ${team.domainId}`,
  );
  if (!(await retryMissionOf(backend, team, lifecycle))) throw noMission;
  const run = await startNewRun(fed, backend, team, config, (now) => retryMissionOf(backend, team, now));
  if (run) return run;
  // Judged again under the lock, no run was started: the team is no longer failed, or its waiting mission is gone.
  if (stateOf((await loadTeamLifecycle(team, backend.lifecycles)).snapshot) === 'failed') throw noMission;
  throw startedMeanwhile(team);
}

function startedMeanwhile(team: RegistryEntry): RefusedError {
  return new RefusedError(
    'NOT_FAILED',
    `team "${team.domainId}": another process started its new run meanwhile — see it with: fed team show ${team.domainId}`,
  );
}

/**
 * The mission of a failed team's new run: the newest mission directive meta sent it since it failed (`fed
 * plan --apply` sends one to a team already registered) — the new run would apply that one first anyway,
 * so it is the one carried out and named — else the failed run's, sent again. A team that failed before
 * it had a mission (a directive waits in the inbox until an actor or a launch applies it) takes the one
 * it would have taken: meta's oldest mission directive waiting in its inbox (what `fed team show` names as
 * its next mission), applied in the new run. Undefined when the lifecycle is no longer
 * failed, or has no mission to take: a retry is then refused (NO_MISSION), and the dashboard offers none.
 */
export async function retryMissionOf(
  backend: FederationBackend,
  team: RegistryEntry,
  lifecycle: TeamLifecycle,
): Promise<RunMission | undefined> {
  const { context } = lifecycle.snapshot;
  if (stateOf(lifecycle.snapshot) !== 'failed') return undefined;
  if (!context.mission) return oldestMissionDirective(backend, team, lifecycle);
  const failedAt = context.enteredAt?.failed;
  const newer = failedAt ? await missionDirectiveSince(backend, team, failedAt, context.mission.signalId) : undefined;
  return newer ?? { subject: context.mission.subject, body: context.mission.body, sentSince: false };
}

/**
 * A directive meta sent a complete team after it completed (the newest, should there be several): the
 * mission of a new run. Undefined when there is none (or the lifecycle is not complete). Read newest
 * first, and no further back than the completion: `fed serve` asks this of every complete team it judges.
 */
export async function newMissionFor(
  backend: FederationBackend,
  team: RegistryEntry,
  /** The team's lifecycle, when the caller has just loaded it. */
  loaded?: TeamLifecycle,
): Promise<Required<RunMission> | undefined> {
  const lifecycle = loaded ?? (await loadTeamLifecycle(team, backend.lifecycles));
  const { context } = lifecycle.snapshot;
  const completedAt = context.enteredAt?.complete;
  if (stateOf(lifecycle.snapshot) !== 'complete' || !completedAt || !context.mission) return undefined;
  return missionDirectiveSince(backend, team, completedAt, context.mission.signalId);
}

/** The newest mission directive meta sent the team at or after `since`, other than the ended run's own (if it had one). */
async function missionDirectiveSince(
  backend: FederationBackend,
  team: RegistryEntry,
  since: string,
  endedMission?: string,
): Promise<Required<RunMission> | undefined> {
  const directive = await newestSince(
    backend.signals,
    { id: team.domainId, entry: team },
    'inbox',
    since,
    ['directive'],
    (message) => message.id !== endedMission && assignsMission(message),
  );
  return directive && heldMission(directive, true);
}

/**
 * The mission directive a lifecycle that never had a mission takes first: meta's oldest in its inbox it
 * has not processed. The whole inbox is read (a retry, once, of a team that failed before its mission).
 */
async function oldestMissionDirective(
  backend: FederationBackend,
  team: RegistryEntry,
  lifecycle: TeamLifecycle,
): Promise<Required<RunMission> | undefined> {
  const processed = new Set(lifecycle.envelope.processed);
  let oldest: SignalEntry | undefined;
  const inbox = signalsSince(backend.signals, { id: team.domainId, entry: team }, 'inbox', new Date(0).toISOString(), [
    'directive',
  ]);
  for await (const entry of inbox)
    if (assignsMission(entry.message) && !processed.has(entry.message.id)) oldest = entry;
  return oldest && heldMission(oldest, false);
}

/**
 * Only meta's directive assigns a mission (the lifecycle takes another team's as a request within it):
 * one from a team must not end a complete run — its deliverable numbered — for a run without one. Nor
 * does a `pause` or `resume` directive: it is a command.
 */
function assignsMission(message: SignalMessage): boolean {
  return message.from === META && !signalCommand(message);
}

/** A waiting directive as a new run's mission, held for the new lifecycle to apply. */
function heldMission(entry: SignalEntry, sentSince: boolean): Required<RunMission> {
  const { message } = entry;
  return { signalId: message.id, file: entry.file, subject: message.subject, body: message.body, sentSince };
}

/**
 * Start the new run a new directive to a complete team asks for; undefined when there is none — judged
 * under the state lock, so when several processes ask at once (two `fed run`s), one starts it.
 */
export async function startRunForNewMission(
  fed: Federation,
  team: RegistryEntry,
  config: FederationConfig,
): Promise<NewRun | undefined> {
  // Most complete teams have none: asked first without settling the ended run or taking its lock.
  if (!(await newMissionFor(fed.backend, team))) return undefined;
  return startNewRun(fed, fed.backend, team, config, (now) => newMissionFor(fed.backend, team, now));
}

/** A new run's mission: a waiting directive (held for the new lifecycle), or the ended run's, sent again. */
interface RunMission {
  subject: string;
  body: string;
  signalId?: string;
  file?: string;
  /** Sent since the ended run ended (a new mission to a complete team, a newer one to a failed team). */
  sentSince: boolean;
}

/**
 * Under the team's state lock: ask `missionNow` for the new run's mission of the lifecycle as it is now —
 * none (undefined returned, nothing done) when another process started a new run since the caller looked —
 * keep the ended run (state and journal into the history, the deliverable
 * numbered), then write a fresh lifecycle that still knows every processed signal, and give it its mission
 * — the directive that asked for it, applied again (held in the fresh envelope: it is acknowledged, so the
 * team actor applies it from the held list), or a new directive from meta carrying the
 * same mission. The fresh envelope is the commit point: a crash before it leaves the ended run as it was
 * (its files kept in the history, which a retry run again reuses).
 */
async function startNewRun(
  fed: Federation,
  backend: FederationBackend,
  team: RegistryEntry,
  config: FederationConfig,
  missionNow: (lifecycle: TeamLifecycle) => Promise<RunMission | undefined>,
): Promise<NewRun | undefined> {
  const entry = lifecycleEntryFor(team);
  // What the ended run still owes (journal lines, reports to meta) is done first, so it is kept with it.
  const owed = await settleTeamLifecycle(fed, team);
  if (owed.length)
    throw new RefusedError(
      'RUN_UNSETTLED',
      `team "${team.domainId}": the ended run still owes effects that cannot be made now (${owed.join('; ')}); fix that, then retry`,
    );
  return withStateLock(fed, team, {}, async (section) => {
    const stored = await backend.lifecycles.read(team);
    if (!stored)
      throw new RefusedError('NO_RUN', `team "${team.domainId}" has no lifecycle state yet; nothing to start again`);
    const mission = await missionNow(await loadTeamLifecycle(team, backend.lifecycles));
    if (!mission) return undefined;
    const kept = await backend.lifecycles.keepRun(team, section);
    const ended = kept.run;
    const keptAs = [displayedLocation(team, kept.location)];
    const deliverable = join(team.location, config.deliverable);
    if (existsSync(deliverable)) {
      const numbered = join(
        team.location,
        `${basename(deliverable, extname(deliverable))}.run-${ended}${extname(deliverable)}`,
      );
      if (existsSync(numbered))
        throw new RefusedError(
          'DELIVERABLE_KEPT',
          `${numbered} already exists; fed never overwrites an earlier run's deliverable — move it away, then retry`,
        );
      renameSync(deliverable, numbered);
      keptAs.push(relative(team.location, numbered));
    }
    // The mission goes out before the commit: a consumer applies it only once this lock is released (to the
    // new lifecycle), and a crash in between leaves the failed run, which ignores it, to be retried again.
    if (!mission.signalId) {
      await sendSignal(fed, {
        from: META,
        to: team.domainId,
        type: 'directive',
        subject: mission.subject,
        body: mission.body,
      });
    }
    const since = new Date().toISOString();
    const fresh = initialPersistedSnapshot(entry, since);
    const { envelope } = stored;
    await backend.lifecycles.write(
      team,
      {
        ...envelope,
        machineId: entry.id,
        machineVersion: entry.version,
        snapshot: fresh,
        processed: envelope.processed.filter((id) => id !== mission.signalId),
        ...(mission.signalId && mission.file
          ? {
              held: [
                ...(envelope.held ?? []).filter((h) => h.id !== mission.signalId),
                { id: mission.signalId, file: mission.file },
              ],
            }
          : {}),
        journalTail: [],
        pendingReports: [],
        savedAt: new Date().toISOString(),
      },
      stored.version,
      section,
    );
    const run: NewRun = {
      team: team.domainId,
      run: ended + 1,
      mission: { subject: mission.subject, body: mission.body },
      missionSentSince: mission.sentSince,
      state: stateOf({ value: fresh.value }),
      since,
      keptAs,
    };
    await recordFederationEvent(backend, {
      kind: 'retried',
      team: team.domainId,
      run: run.run,
      mission: mission.subject,
      keptAs,
    });
    return run;
  });
}

/** A kept run's location relative to the workspace when it is a path inside it, else as the store gave it. */
function displayedLocation(team: RegistryEntry, location: string): string {
  return isAbsolute(location) && location.startsWith(`${team.location}/`)
    ? relative(team.location, location)
    : location;
}
