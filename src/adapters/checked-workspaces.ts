import { realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RegistryEntry } from '../core/schema/registry.js';
import { ensureDirectory } from '../infra/fs/ensure-directory.js';
import type { WriteOptions } from '../infra/fs/atomic-write.js';
import { checkWorkspace, type CheckedWorkspace, type WorkspaceCheckOptions } from './team-workspace.js';

/**
 * The workspace checks of one Federation context (one command, or one server's backend): `teamWorkspace`'s
 * whole check runs once per team, and each write into a workspace re-checks only the folder it writes into
 * — one realpath, which resolves every link from the root down to that folder. A workspace replaced by a
 * link (or a runtime folder that became one) after the first check is still refused before a write; reads
 * trust the first check, as they did between two checks before. Never shared across processes.
 */
export class CheckedWorkspaces {
  private readonly checked = new Map<string, CheckedWorkspace>();

  constructor(
    private readonly root: string,
    private readonly options: WorkspaceCheckOptions = {},
  ) {}

  /** The team's workspace, checked once by this instance: for reads and to find its folders. */
  workspace(entry: RegistryEntry): string {
    return (this.checked.get(keyOf(entry)) ?? this.check(entry)).location;
  }

  /**
   * The team's workspace, right before a write into `folder` — the workspace itself or one of the runtime
   * folders `teamWorkspace` checks. A folder that resolves where the first check says it lies passes; one
   * that does not (or is not there yet) gets the whole check again, which refuses it naming what changed.
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

  /** `found`: the folder resolved where it should, so it exists. */
  private recheck(entry: RegistryEntry, folder: string): { location: string; found: boolean } {
    const known = this.checked.get(keyOf(entry));
    if (known !== undefined && resolved(folder) === join(known.real, relative(entry.location, folder)))
      return { location: known.location, found: true };
    return { location: this.check(entry).location, found: false };
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

/** The folder with every link resolved; undefined when it is not there. */
function resolved(folder: string): string | undefined {
  try {
    return realpathSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
