import type { LaunchResult } from '../../engine/hooks/federation-hooks.js';

/** What brought a team's agent to be launched: the work the dispatcher found for it. */
export type WorkKind =
  /** Its first mission, waiting in its inbox or just applied. */
  | 'mission'
  /** A directive beside the mission it already works on. */
  | 'directive'
  /** A new mission to a team whose last run was complete: a new run of its lifecycle. */
  | 'new-mission'
  /** Paused by its last launch (a rate limit that has reset, an interruption, a crash after progress). */
  | 'resume'
  /** Mid-work, its last launch cut short (its launcher died): the work it owes. */
  | 'owed';

/**
 * What `fed serve` tells as it goes: one line each (`fed serve` prints them, `--json` as JSON lines).
 * Fields are only ever added.
 */
export type ServeEvent =
  | { kind: 'started'; at: string; root: string; host: string; pid: number; capacity: number }
  /** The dashboard this server serves (`--ui`). */
  | { kind: 'ui'; at: string; url: string }
  | {
      kind: 'dispatched';
      at: string;
      team: string;
      work: WorkKind;
      subject: string | null;
      /** Agents running once this one started, and teams still waiting for capacity. */
      running: number;
      queued: number;
    }
  | {
      kind: 'ended';
      at: string;
      team: string;
      outcome: LaunchResult['outcome'] | 'error';
      state: string | null;
      reason: string | null;
      resumeAt: string | null;
      durationMs: number;
    }
  /** A team with work that waits: for capacity, a backoff after a launch that did not finish, an account's ramp. */
  | { kind: 'waiting'; at: string; team: string; why: string; until: string | null }
  /** A team whose state cannot be used, or whose actor runs elsewhere: said once until it changes. */
  | { kind: 'skipped'; at: string; team: string; reason: string }
  /** A lifecycle transition the actors applied (a signal that arrived). */
  | { kind: 'applied'; at: string; team: string; from: string; to: string; event: string }
  /** A host with teams placed on it has not been heard from for `serve.hostLostAfter`: said once per loss. */
  | { kind: 'host-lost'; at: string; host: string; lastHeard: string; teams: string[] }
  /** A team placed on another host; this server's failover moved it here (`by: 'failover'`). */
  | { kind: 'moved'; at: string; team: string; from: string | null; to: string; by: 'person' | 'failover' }
  | { kind: 'fired'; at: string; schedule: string; team: string; signalId: string; subject: string; due: string }
  | { kind: 'warning'; at: string; text: string }
  | { kind: 'stopping'; at: string; running: string[]; graceMs: number }
  /**
   * The teams whose agents it stopped: `paused` by their launches (the next start resumes them), or their
   * runs' ends `owed` (not recorded in time, the broker unreachable: the next start records and goes on).
   */
  | { kind: 'stopped'; at: string; paused: string[]; owed: string[] };

export type ServeEventKind = ServeEvent['kind'];
