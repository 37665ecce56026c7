import { workspacePaths } from './file-layout.js';
import { archiveDirectoryOf } from './archive/box-archive.js';
import { quarantineDirectory } from './signals/quarantine.js';

/** The folders beside and in a workspace's signal boxes that file-signal-v1 moves signals into (`fed doctor` checks them too). */
export function boxSideFolders(workspace: string): string[] {
  const paths = workspacePaths(workspace);
  return [quarantineDirectory(workspace), archiveDirectoryOf(paths.inbox), archiveDirectoryOf(paths.outbox)];
}
