import { CorruptFileError, NotAFederationError, RegistryConflictError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import { parseJsonFile, readTextFile } from '../../infra/fs/read-json-file.js';
import { writeFileAtomic, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { assertLockHeld, LockLostError, withLock, type LockOptions } from '../../infra/fs/lock.js';
import { federationPaths } from '../../core/layout.js';
import { nextLockVersion, registrySchema, type Registry } from '../../core/schema/registry.js';

/** Declared with the registry store port; exported here too, where it always was. */
export { RegistryConflictError };

const REGISTRY_FIX = 'fed will not overwrite it; restore .fed/team-registry.json from a backup';

/** Parse registry text; a broken file is reported with its path and problem and never replaced. */
export function parseRegistry(text: string, file: string): Registry {
  return parseJsonFile(text, file, registrySchema);
}

/**
 * The last registry this process validated, with the exact text it came from. One command reads the
 * registry several times (`fed event`: to find the team, under the state lock, to send the transition
 * report, to refresh lastActive, to sync the status), and validating it is what costs — milliseconds per
 * read in a federation of a few hundred teams, against microseconds to read the file. The file is still
 * read every time, so a change by any process is seen at once: only a byte-identical text is not
 * validated again. Callers may change what they get (updateRegistry does), so each gets its own copy.
 */
let lastValidated: { file: string; text: string; registry: Registry } | undefined;

export function readRegistry(root: string): Registry {
  const file = federationPaths(root).registry;
  const text = readTextFile(file, REGISTRY_FIX);
  if (text === undefined)
    throw new NotAFederationError(`${root} is not an initialised federation (no ${file}); run: fed init`);
  if (lastValidated?.file !== file || lastValidated.text !== text)
    lastValidated = { file, text, registry: parseRegistry(text, file) };
  return structuredClone(lastValidated.registry);
}

/**
 * Only the version, for the check under the commit lock: the caller validated the whole registry when it
 * read it, and keeping the locked section short is what lets concurrent writers through.
 */
function readLockVersion(file: string): number {
  const text = readTextFile(file, REGISTRY_FIX);
  if (text === undefined) throw new NotAFederationError(`${file} disappeared; run: fed init`);
  let version: unknown;
  try {
    version = (JSON.parse(text) as { lockVersion?: unknown }).lockVersion;
  } catch (error) {
    throw new CorruptFileError(file, `not valid JSON (${(error as Error).message})`);
  }
  if (!Number.isInteger(version)) throw new CorruptFileError(file, 'lockVersion: expected an integer');
  return version as number;
}

export interface CommitOptions extends WriteOptions {
  lock?: LockOptions;
  now?: () => Date;
}

/**
 * Compare-and-swap: write `next` only if the registry is still at `expectedVersion`, setting
 * `lastUpdated` and `lockVersion = expectedVersion + 1` (docs/design/spec.md §4.3). The short commit lock makes the
 * check and the atomic replace one step; the version check is what detects lost updates. Both are made
 * again right before the rename, once the new content is durable: a writer that stalled inside the lock
 * (slow fsync, SIGSTOP) and lost it meanwhile gets a conflict and retries on top of the newer registry
 * instead of overwriting it.
 */
export async function commitRegistry(
  root: string,
  expectedVersion: number,
  next: Registry,
  options: CommitOptions = {},
): Promise<Registry> {
  const paths = federationPaths(root);
  return withLock(
    paths.registryLock,
    (handle) => {
      const checkVersion = () => {
        const currentVersion = readLockVersion(paths.registry);
        if (currentVersion !== expectedVersion) {
          throw new RegistryConflictError(paths.registry, expectedVersion, currentVersion);
        }
      };
      checkVersion();
      const written: Registry = {
        ...next,
        lastUpdated: (options.now?.() ?? new Date()).toISOString(),
        lockVersion: nextLockVersion(expectedVersion, paths.registry),
      };
      const beforeReplace = () => {
        try {
          assertLockHeld(handle);
        } catch (error) {
          if (!(error instanceof LockLostError)) throw error;
          throw new RegistryConflictError(paths.registry, expectedVersion, readLockVersion(paths.registry));
        }
        checkVersion();
      };
      writeFileAtomic(paths.registry, toJsonText(written), { ...options, beforeReplace });
      return written;
    },
    options.lock,
  );
}
