import { dirname } from 'node:path';
import { FedError } from '../../core/errors.js';
import { createFileExclusive } from '../../infra/fs/atomic-write.js';
import type { CheckedRootFolders } from '../checked-root-folders.js';
import { toJsonText } from '../../core/json-text.js';
import { federationPaths } from './file-layout.js';
import type {
  RegistryCommitOptions,
  RegistryMutation,
  RegistryStore,
  RegistryUpdate,
} from '../../ports/registry-store.js';
import { commitRegistry, readRegistry, updateRegistryFile } from './registry-file.js';
import type { Registry } from '../../core/schema/registry.js';
import { RegistryValidation } from './registry-validation.js';
import { activityToFold, appendTeamActivity, FOLD_FROM_BYTES } from './team-activity-file.js';

/**
 * The registry as `.fed/team-registry.json` (docs/design/spec.md §2.4): replaced atomically, with the compare-and-swap
 * on `lockVersion` made under a short commit lock (`.fed/team-registry.json.lock`); an update reads, changes and
 * commits the registry all under that lock.
 */
export class FileRegistryStore implements RegistryStore {
  readonly location: string;
  private readonly root: string;
  private readonly validation: RegistryValidation;

  /** `folders`: the root's runtime folders, checked before a write (a link there is refused). */
  constructor(
    root: string,
    private readonly folders: CheckedRootFolders,
  ) {
    this.root = root;
    this.location = federationPaths(root).registry;
    this.validation = new RegistryValidation(root, folders);
  }

  async read(): Promise<Registry> {
    return readRegistry(this.root, this.validation);
  }

  async commit(expectedVersion: number, next: Registry, options: RegistryCommitOptions = {}): Promise<Registry> {
    this.folders.beforeWrite(dirname(this.location));
    return commitRegistry(this.root, expectedVersion, next, { ...options, validation: this.validation });
  }

  async update(mutate: RegistryMutation, options: RegistryCommitOptions = {}): Promise<RegistryUpdate> {
    this.folders.beforeWrite(dirname(this.location));
    return updateRegistryFile(this.root, mutate, { ...options, validation: this.validation });
  }

  /**
   * A line appended to `.fed/team-activity.jsonl`, not a registry write; once that file has grown past a
   * few KB the registry takes it in (a write of the registry as it is, which folds it) — unless another
   * process did meanwhile. That fold is housekeeping: the refresh is recorded already, so its failure (the
   * commit lock held too long) is left to the next append or registry write.
   */
  async touchActivity(team: string, at: string, options: RegistryCommitOptions = {}): Promise<void> {
    this.folders.beforeWrite(dirname(this.location));
    // Not fsynced: a refresh is best effort (docs/guarantees.md), and a power loss that takes the last ones
    // (or leaves a torn line, which reads skip) costs no more than the race a fold already accepts.
    if (appendTeamActivity(this.root, { team, at }, { durable: false }) < FOLD_FROM_BYTES) return;
    try {
      await this.update((registry) => (activityToFold(this.root) ? registry : undefined), options);
    } catch (error) {
      // A lock held too long, a conflict, a file fed cannot write: the next append or registry write folds.
      if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
    }
  }

  async create(initial: Registry, options: RegistryCommitOptions = {}): Promise<boolean> {
    this.folders.folderForWrite(dirname(this.location), options);
    return createFileExclusive(this.location, toJsonText(initial), options);
  }
}
