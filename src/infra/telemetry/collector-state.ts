import { writeFileAtomic } from '../fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { readJsonFile } from '../fs/read-json-file.js';
import { federationPaths } from '../../core/layout.js';
import { redactUrl, redactUrlsIn } from '../../core/redact-url.js';
import { collectorStateSchema, type CollectorState } from '../../core/schema/telemetry-state.js';
import type { ExportOutcome } from './metrics-export.js';

/**
 * The collector's last known state for this federation; undefined before the first export. The record names
 * the collector without the credentials its URL may carry (`.fed/` is read by every team, and `fed monitor`
 * prints it): URLs are kept, and compared, redacted (core/redact-url).
 */
export function readCollectorState(root: string): CollectorState | undefined {
  return readJsonFile(federationPaths(root).collectorState, collectorStateSchema);
}

/** How long a collector found unreachable is left alone before a command tries it again. */
export const COLLECTOR_RECHECK_MS = 60_000;

/**
 * Whether metrics should be sent to `url` now: always, unless the last export there failed less than
 * COLLECTOR_RECHECK_MS ago — those metrics would be dropped anyway, after a wait.
 */
export function collectorRecheckDue(root: string, url: string, now = new Date()): boolean {
  let state: CollectorState | undefined;
  try {
    state = readCollectorState(root);
  } catch {
    return true;
  }
  if (state === undefined || state.url !== redactUrl(url) || state.reachable) return true;
  return now.getTime() - Date.parse(state.checkedAt) >= COLLECTOR_RECHECK_MS;
}

export interface CollectorChange {
  state: CollectorState;
  /** The state before this export, when one was recorded for the same URL. */
  previous: CollectorState | undefined;
  /** True when this export changed what is known (reachable ⇄ unreachable, or a first export to the URL). */
  changed: boolean;
}

/**
 * Record the outcome of an export to `url`. Every command of a federation shares the record, so only the
 * command that sees the collector change state needs to say so. A record that cannot be read is replaced;
 * one that cannot be written only costs the next command a repeated warning.
 */
export function recordCollectorOutcome(
  root: string,
  url: string,
  outcome: ExportOutcome,
  now = new Date(),
): CollectorChange {
  let previous: CollectorState | undefined;
  try {
    previous = readCollectorState(root);
  } catch {
    previous = undefined;
  }
  if (previous?.url !== redactUrl(url)) previous = undefined;
  const changed = previous?.reachable !== outcome.ok;
  const state: CollectorState = {
    url: redactUrl(url),
    reachable: outcome.ok,
    since: changed || !previous ? now.toISOString() : previous.since,
    checkedAt: now.toISOString(),
    ...(outcome.ok ? {} : { error: describeExportError(outcome.error) }),
  };
  // A reachable collector that stays reachable changes nothing worth a write (checkedAt matters only while
  // it is unreachable, for the retry pacing): the commands that export most pay one read, no write.
  if (changed || !outcome.ok) {
    try {
      writeFileAtomic(federationPaths(root).collectorState, toJsonText(state), { durable: false });
    } catch {
      // Best effort: see above.
    }
  }
  return { state, previous, changed };
}

/**
 * Node reports a refused connection to a name with several addresses as an AggregateError without a message.
 * A message that names the URL names it redacted.
 */
export function describeExportError(error: Error): string {
  return redactUrlsIn(error.message || (error as NodeJS.ErrnoException).code || error.name);
}
