import { existsSync } from 'node:fs';
import type { BackendAdapter } from '../adapter.js';
import type { FilesBackendConfig } from '../../core/schema/backends/files.js';
import { checkRegistryFile, createRegistryFile } from './init-registry-file.js';
import { openFileBackend } from './open-file-backend.js';
import { boxSideFolders } from './box-folders.js';
import { deliveryDirectory } from './file-delivery-fact-store.js';
import { federationPaths, fileBackendPaths, workspacePaths } from './file-layout.js';

/** file-signal-v1, the default: everything in files under the federation root (docs/design/spec.md §4.1). */
export const fileAdapter: BackendAdapter<FilesBackendConfig> = {
  type: 'files',
  title: 'file',
  sharesTeamsAcrossMachines: false,
  open: ({ root, workspaces, config }) =>
    openFileBackend(root, workspaces, config.deliverable, config.federationReport),
  checkInit: (_config, root) => checkRegistryFile(root),
  initFolders: (root) => {
    const meta = workspacePaths(root);
    return [meta.inbox, meta.outbox];
  },
  initFiles: createRegistryFile,
  marksRoot: (dir) => existsSync(federationPaths(dir).registry),
  runtimePaths: (workspace, root) => [
    ...fileBackendPaths(workspace, root),
    ...boxSideFolders(workspace),
    ...(root ? [deliveryDirectory(workspace)] : []),
  ],
};
