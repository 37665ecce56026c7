import type { FederationBackend } from '../../ports/federation-backend.js';
import { federationRecordSchema, type FederationRecord } from '../../core/schema/federation-journal.js';

/** What holds a federation journal: a backend. */
type JournalHolder = Pick<FederationBackend, 'journal'>;

/** A record without its time: `recordFederationEvent` stamps it. */
export type FederationEvent = FederationRecord extends infer R
  ? R extends FederationRecord
    ? Omit<R, 'at'>
    : never
  : never;

/** Append one record to the federation journal of the backend, stamped now. */
export async function recordFederationEvent(
  backend: JournalHolder,
  event: FederationEvent,
  now: Date = new Date(),
): Promise<FederationRecord> {
  const record = federationRecordSchema.parse({ ...event, at: now.toISOString() });
  await backend.journal.append(record);
  return record;
}

/**
 * For a record of something already done whose caller must not fail for it (a launch has run its agent
 * and recorded the run): the problem as a warning, or undefined when it was journaled.
 */
export async function journalQuietly(backend: JournalHolder, event: FederationEvent): Promise<string | undefined> {
  try {
    await recordFederationEvent(backend, event);
    return undefined;
  } catch (error) {
    return `the federation journal ${backend.journal.location} could not be appended (${(error as Error).message}); fed log will miss this ${event.kind} of ${event.team}`;
  }
}

/** Every record of the federation journal, oldest first; torn or foreign records are skipped. */
export function readFederationJournal(backend: JournalHolder): Promise<FederationRecord[]> {
  return backend.journal.read();
}
