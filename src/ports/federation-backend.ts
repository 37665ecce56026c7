import type { DispatchQueue } from './dispatch-queue.js';
import type { DeliveryFactStore } from './delivery-fact-store.js';
import type { FederationChanges } from './federation-changes.js';
import type { FederationJournal } from './federation-journal.js';
import type { HostDirectory } from './host-directory.js';
import type { TeamFileStore } from './team-file-store.js';
import type { TranscriptStore } from './transcript-store.js';
import type { LifecycleStore } from './lifecycle-store.js';
import type { RegistryStore } from './registry-store.js';
import type { SignalTransport } from './signal-transport.js';

/**
 * Everything a federation keeps and moves, behind its ports. `openFederation(root)`
 * (src/engine/context.ts, through the adapter registry src/adapters/index.ts) opens the one a federation is configured with.
 */
export interface FederationBackend {
  /** The adapter's name, e.g. `file-signal-v1`. */
  readonly name: string;
  readonly root: string;
  readonly signals: SignalTransport;
  readonly registry: RegistryStore;
  readonly lifecycles: LifecycleStore;
  /** What happened to each signal after it was sent: the id claims, read marks, answers, alerts. */
  readonly delivery: DeliveryFactStore;
  readonly journal: FederationJournal;
  /** That something changed, for long-running readers (the dashboard). */
  readonly changes: FederationChanges;
  /** The machines serving the federation, on a backend shared across machines; absent when there is one (files). */
  readonly hosts?: HostDirectory;
  /** A copy of each team's own files, so a team can move to another machine; absent on one machine (files). */
  readonly teamFiles?: TeamFileStore;
  /** A copy of each run's transcript and prompt, read where a moved team's run is looked back at; absent on one machine (files). */
  readonly transcripts?: TranscriptStore;
  /** The pending work of unplaced teams, which any host's server takes; absent on one machine (files). */
  readonly work?: DispatchQueue;
}
