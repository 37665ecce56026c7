import { appendJsonLine } from '../fs/append-line.js';
import { readTextFile } from '../fs/read-json-file.js';
import { federationPaths } from '../layout.js';
import { federationRecordSchema, type FederationRecord } from '../schema/federation-journal.js';
import { parseJsonLines } from '../schema/json-lines.js';

/** A record without its time: `recordFederationEvent` stamps it. */
export type FederationEvent = FederationRecord extends infer R ? (R extends FederationRecord ? Omit<R, 'at'> : never) : never;

/** Append one record to the federation journal (durably), stamped now. */
export function recordFederationEvent(root: string, event: FederationEvent, now: Date = new Date()): FederationRecord {
  const record = federationRecordSchema.parse({ ...event, at: now.toISOString() });
  appendJsonLine(federationPaths(root).federationJournal, record);
  return record;
}

/**
 * For a record of something already done whose caller must not fail for it (a launch has run its agent
 * and recorded the run): the problem as a warning, or undefined when it was journaled.
 */
export function journalQuietly(root: string, event: FederationEvent): string | undefined {
  try {
    recordFederationEvent(root, event);
    return undefined;
  } catch (error) {
    return `the federation journal ${federationPaths(root).federationJournal} could not be appended (${(error as Error).message}); fed log will miss this ${event.kind} of ${event.team}`;
  }
}

/** Every record of the federation journal, oldest first; torn or foreign lines are skipped. */
export function readFederationJournal(root: string): FederationRecord[] {
  const text = readTextFile(federationPaths(root).federationJournal, 'move it aside; fed starts a new journal') ?? '';
  return parseJsonLines(text, federationRecordSchema);
}
