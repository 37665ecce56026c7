import type { StuckSignal } from '../../engine/delivery/stuck-signals.js';

export type { StuckSignal };

/**
 * The result of one monitoring cycle — what `fed monitor --json` prints. This shape is stable: fields are
 * only ever added. Times are ISO 8601; durations are milliseconds.
 */
export interface BoxCounts {
  total: number;
  unacknowledged: number;
}

export interface TeamReport {
  team: string;
  domain: string;
  archetype: string;
  /** Registry status: active, paused, archived. */
  status: string;
  lifecycle: {
    machine: string;
    state: string;
    /** When the current state was entered, when known. */
    since: string | null;
    inStateMs: number | null;
    /** When the lifecycle last changed (its state file was written), or the onboarding time. */
    updatedAt: string;
    mission: string | null;
    failure: string | null;
  } | null;
  lastActive: string | null;
  /** Signals to the team, and how many it has not acknowledged. */
  inbox: BoxCounts;
  /** Signals the team sent, and how many their recipients have not acknowledged. */
  outbox: BoxCounts;
  deliverable: { path: string; exists: boolean; sizeBytes: number } | null;
  healthy: boolean;
  /** Why the team is unhealthy (empty when healthy). */
  reasons: string[];
  /** Set when the team's files could not be read; the team is then unhealthy. */
  error: string | null;
}

/** Where fed's metrics go and what the last command that sent some found there (`.fed/telemetry-collector.json`). */
export interface TelemetryReport {
  enabled: boolean;
  /** The OTLP/HTTP metrics URL (when enabled). */
  url: string | null;
  /** `unknown` until a command has exported metrics to this URL. */
  collector: 'reachable' | 'unreachable' | 'unknown';
  /** Since when the collector has been in that state, and when it was last tried. */
  since: string | null;
  checkedAt: string | null;
  /** Why the last export failed, when it did. */
  error: string | null;
}

export interface MonitorReport {
  generatedAt: string;
  root: string;
  staleAfterMinutes: number;
  /** Unhealthy teams first, then by id. */
  teams: TeamReport[];
  meta: { inbox: BoxCounts; outbox: BoxCounts };
  totals: { teams: number; healthy: number; unhealthy: number; unacknowledged: number };
  /**
   * Live signals past their type's deadline (`expired`) or in an archived team's inbox (`undeliverable`),
   * oldest first, each with the alert sent about it (`fed monitor` sends one per signal, once).
   */
  stuckSignals: StuckSignal[];
  /** Signals moved to archive folders by this cycle (config `signalArchive`); 0 when it is not set. */
  archivedSignals: number;
  telemetry: TelemetryReport;
}
