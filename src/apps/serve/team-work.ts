import { archetypeOf } from '../../engine/archetypes/catalog.js';
import { stateOf } from '../../engine/actors/state-of.js';
import type { Federation } from '../../engine/context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { readCurrentRun } from '../launch/run-records.js';
import { judgeTeam, type Candidate } from '../run/team-judgement.js';
import type { WorkKind } from './serve-events.js';

/** Work a team has for its agent: what it is, and since when it has been waiting (the oldest goes first). */
export interface TeamWork {
  candidate: Candidate;
  kind: WorkKind;
  subject: string | null;
  /** When the work arrived or fell due (ms): the dispatch order, oldest first. */
  since: number;
  /** Not before this time (ms): a rate limit that resets then. */
  notBefore: number;
}

/**
 * Whether a team has work an agent can do now, as `fed run` judges it — a mission or directive to work on,
 * a pause of its last launch to resume, a new mission after a complete run — and, beyond that, not a
 * lifecycle that waits on someone else by its archetype's completion policy (a coding team in review, a
 * consultant waiting for its next question): a launch would find nothing to do there. Undefined, with
 * why in `skip`, when it has none.
 */
export async function workFor(
  fed: Federation,
  team: RegistryEntry,
): Promise<{ work: TeamWork; skip?: undefined } | { work?: undefined; skip: string }> {
  const candidate = await judgeTeam(fed, team);
  if (candidate.skip) return { skip: candidate.skip };
  const { lifecycle, waitingDirective } = candidate;
  const mission = lifecycle?.snapshot.context.mission ?? null;
  if (!candidate.newRun && !waitingDirective && lifecycle && !candidate.resume) {
    const settled = archetypeOf(team).completion.settled(lifecycle.snapshot, team);
    if (settled?.outcome === 'waiting')
      return { skip: `${stateOf(lifecycle.snapshot)}, nothing to do until then: ${settled.next}` };
  }
  const resumeAt = candidate.resumeAt ? Date.parse(candidate.resumeAt) : 0;
  const savedAt = lifecycle?.stored ? Date.parse(lifecycle.envelope.savedAt) : Date.now();
  const kind: WorkKind = candidate.newRun
    ? 'new-mission'
    : candidate.resume
      ? 'resume'
      : waitingDirective && mission
        ? 'directive'
        : readCurrentRun(team.location)
          ? 'owed'
          : 'mission';
  return {
    work: {
      candidate,
      kind,
      subject: candidate.newMission?.subject ?? waitingDirective?.subject ?? mission?.subject ?? null,
      since: waitingDirective ? Date.parse(waitingDirective.timestamp) : resumeAt || savedAt,
      notBefore: resumeAt,
    },
  };
}

/**
 * The name of a piece of a team's work in the shared queue of unplaced teams: its kind and when it
 * arrived, the same on every host that judges it, and new once a launch has changed the team.
 */
export function workKey(work: TeamWork): string {
  return `${work.kind}-${work.since}`;
}
