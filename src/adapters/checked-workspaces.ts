import { join, relative } from 'node:path';
import type { RegistryEntry } from '../core/schema/registry.js';
import { ensureDirectory } from '../infra/fs/ensure-directory.js';
import { resolvePath } from '../infra/fs/resolve-path.js';
import type { WriteOptions } from '../infra/fs/atomic-write.js';
import { checkWorkspace, linked, type CheckedWorkspace, type WorkspaceCheckOptions } from './team-workspace.js';
import { CheckedRootFolders } from './checked-root-folders.js';

/**
 * The workspace checks of one Federation context (one command, or one server's backend): `teamWorkspace`'s
 * whole check runs once per team, and each write into a workspace re-checks only the folder it writes into
 * — one realpath, which resolves every link from the root down to that folder. A workspace replaced by a
 * link (or a runtime folder that became one) after the first check is still refused before a write; reads
 * trust the first check, as they did between two checks before. Never shared across processes.
 */
export class CheckedWorkspaces {
  private readonly checked = new Map<string, CheckedWorkspace>();
  /** Meta's workspace — the root's runtime folders — checked the same way before a write. */
  readonly meta: CheckedRootFolders;

  constructor(
    private readonly root: string,
    private readonly options: WorkspaceCheckOptions = {},
  ) {
    this.meta = new CheckedRootFolders(root);
  }

  /** The team's workspace, checked once by this instance: for reads and to find its folders. */
  workspace(entry: RegistryEntry): string {
    return (this.checked.get(keyOf(entry)) ?? this.check(entry)).location;
  }

  /**
   * The team's workspace, right before a write into `folder` — the workspace itself or a folder of it. A
   * folder that resolves where the first check says it lies passes; one that does not (or is not there
   * yet) gets the whole check again, which refuses it naming what changed.
   */
  beforeWrite(entry: RegistryEntry, folder: string): string {
    return this.recheck(entry, folder).location;
  }

  /** `beforeWrite`, then `folder` created (durably) unless the re-check found it there already. */
  folderForWrite(entry: RegistryEntry, folder: string, options: WriteOptions = {}): string {
    const { location, found } = this.recheck(entry, folder);
    if (!found) ensureDirectory(folder, options);
    return location;
  }

  /**
   * `found`: the folder resolved where it should, so it exists. Any folder of the workspace is compared
   * resolved (a missing one through the nearest folder above it), so a link the whole check does not look
   * for — deeper down, or planted since — is refused too.
   */
  private recheck(entry: RegistryEntry, folder: string): { location: string; found: boolean } {
    const known = this.checked.get(keyOf(entry));
    const rel = relative(entry.location, folder);
    const found = resolvePath(folder);
    if (known !== undefined && found.exists && found.real === join(known.real, rel))
      return { location: known.location, found: true };
    const checked = this.check(entry);
    if (found.danglingLink !== undefined) throw linked(entry, found.danglingLink, 'a missing target');
    if (found.real !== join(checked.real, rel)) throw linked(entry, folder, found.real);
    return { location: checked.location, found: found.exists };
  }

  private check(entry: RegistryEntry): CheckedWorkspace {
    const checked = checkWorkspace(this.root, entry, this.options);
    this.checked.set(keyOf(entry), checked);
    return checked;
  }
}

function keyOf(entry: RegistryEntry): string {
  return `${entry.domainId}\0${entry.location}`;
}
