import { DEFAULT_DELIVERABLE, DEFAULT_FEDERATION_REPORT } from '../../core/schema/config.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { CheckedWorkspaces } from '../checked-workspaces.js';
import { FileDeliveryFactStore } from './file-delivery-fact-store.js';
import { FileFederationChanges } from './file-federation-changes.js';
import { FileFederationJournal } from './file-federation-journal.js';
import { FileLifecycleStore } from './file-lifecycle-store.js';
import { FileRegistryStore } from './file-registry-store.js';
import { FileSignalTransport } from './file-signal-transport.js';

/** The name of the file backend (as `FederationBackend.name`). */
export const FILE_BACKEND_NAME = 'file-signal-v1';

/**
 * The file-signal-v1 backend of the federation at `root`: everything in files under it (docs/design/spec.md §4.1).
 * Its workspace checks are the Federation context's when it passes them (one check per team per context);
 * `deliverable` is the config's file name of a team's deliverable (its change feed watches it).
 */
export function openFileBackend(
  root: string,
  workspaces = new CheckedWorkspaces(root),
  deliverable = DEFAULT_DELIVERABLE,
  federationReport = DEFAULT_FEDERATION_REPORT,
): FederationBackend {
  return {
    name: FILE_BACKEND_NAME,
    root,
    signals: new FileSignalTransport(root, workspaces),
    registry: new FileRegistryStore(root, workspaces.meta),
    lifecycles: new FileLifecycleStore(workspaces),
    journal: new FileFederationJournal(root, workspaces.meta),
    delivery: new FileDeliveryFactStore(root, workspaces.meta),
    changes: new FileFederationChanges(root, deliverable, federationReport),
  };
}
