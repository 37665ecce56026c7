import type { HostRecord } from '../core/schema/host.js';
import type { ChangeWatch } from './federation-changes.js';

/** A host's record as the directory holds it, and when the directory last heard from it. */
export interface HeardHost {
  record: HostRecord;
  /**
   * When the record was last written, by the store's own clock (the NATS server's): a reader compares it
   * with its clock to tell a host's age, so hosts' clocks are never compared with each other.
   */
  heardAt: Date;
}

/**
 * The hosts serving a federation shared across machines (the JetStream backend): each `fed serve`
 * announces its host here and renews the record every heartbeat. A backend whose teams all work on one
 * machine (files) has none: that machine is the only host.
 */
export interface HostDirectory {
  /** Where the records are, for messages. */
  readonly location: string;
  /** Write (or renew) a host's record. */
  put(record: HostRecord): Promise<void>;
  /** One host's record, or undefined when it never announced itself. */
  get(name: string): Promise<HeardHost | undefined>;
  /** Every host that ever announced itself, by name. */
  list(): Promise<HeardHost[]>;
  /**
   * Call `listener` with each host record written from now on (a start, a heartbeat, a stop), for a
   * long-running reader (the dashboard) that tells when a host changes; a record that is not valid is
   * skipped (`list` reports it). `onError` hears a watch that broke; it then ends.
   */
  watch(listener: (host: HeardHost) => void, onError?: (error: Error) => void): ChangeWatch;
}
