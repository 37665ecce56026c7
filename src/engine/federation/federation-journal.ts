import { openBackend } from '../../adapters/open-backend.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { federationRecordSchema, type FederationRecord } from '../../core/schema/federation-journal.js';

/** A record without its time: `recordFederationEvent` stamps it. */
export type FederationEvent = FederationRecord extends infer R ? (R extends FederationRecord ? Omit<R, 'at'> : never) : never;

/** Append one record to the federation journal of the backend (or of the federation at a root), stamped now. */
export async function recordFederationEvent(at: string | FederationBackend, event: FederationEvent, now: Date = new Date()): Promise<FederationRecord> {
  const record = federationRecordSchema.parse({ ...event, at: now.toISOString() });
  await journalOf(at).append(record);
  return record;
}

/**
 * For a record of something already done whose caller must not fail for it (a launch has run its agent
 * and recorded the run): the problem as a warning, or undefined when it was journaled.
 */
export async function journalQuietly(at: string | FederationBackend, event: FederationEvent): Promise<string | undefined> {
  try {
    await recordFederationEvent(at, event);
    return undefined;
  } catch (error) {
    return `the federation journal ${journalOf(at).location} could not be appended (${(error as Error).message}); fed log will miss this ${event.kind} of ${event.team}`;
  }
}

/** Every record of the federation journal, oldest first; torn or foreign records are skipped. */
export function readFederationJournal(at: string | FederationBackend): Promise<FederationRecord[]> {
  return journalOf(at).read();
}

function journalOf(at: string | FederationBackend) {
  return (typeof at === 'string' ? openBackend(at) : at).journal;
}
