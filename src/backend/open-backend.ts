import { openFileBackend } from '../adapters/file/open-file-backend.js';
import type { FederationBackend } from '../ports/federation-backend.js';

/**
 * The backend of the federation at `root`. Every federation uses file-signal-v1 today; a second adapter
 * is one more branch here, chosen by the federation's configuration.
 */
export function openBackend(root: string): FederationBackend {
  return openFileBackend(root);
}
