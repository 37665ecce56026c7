import type { FederationRecord } from '../core/schema/federation-journal.js';

/**
 * The federation journal port: what happened to the federation's teams as a whole (onboarding, status
 * changes, launches, retries, removals), appended by whichever machine did it and read by `fed log` and
 * `fed run` from any machine. Records are never changed or removed.
 */
export interface FederationJournal {
  /** Where the journal is, to show to a person in messages. */
  readonly location: string;
  /** Append one record, durably. */
  append(record: FederationRecord): Promise<void>;
  /** Every record, oldest first; torn or foreign records are skipped. */
  read(): Promise<FederationRecord[]>;
  /**
   * `read`, and how many lines (messages) it skipped as not records — torn by a crash, written by another
   * tool or a newer fed: what `fed log` warns of and `fed doctor` reports.
   */
  readCounted(): Promise<{ records: FederationRecord[]; skipped: number }>;
}
