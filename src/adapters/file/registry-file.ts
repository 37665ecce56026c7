import { CorruptFileError, NotAFederationError, RegistryConflictError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import { parseJsonFile, readIdentifiedTextFile, readTextFile } from '../../infra/fs/read-json-file.js';
import { writeFileAtomic, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { assertLockHeld, LockLostError, withLock, type LockOptions } from '../../infra/fs/lock.js';
import { federationPaths } from './file-layout.js';
import { nextLockVersion, registrySchema, type Registry } from '../../core/schema/registry.js';
import type { RegistryMutation, RegistryUpdate } from '../../ports/registry-store.js';
import { copyFlatRegistry, isFlatRegistryText } from './registry-copy.js';
import { activityFolded, foldTeamActivity, holdActivityForFold, readTeamActivity } from './team-activity-file.js';
import {
  parseValidatedRegistry,
  REMEMBERED_FROM_BYTES,
  RegistryValidation,
  validWrite,
  type ReadStamp,
} from './registry-validation.js';

/** Declared with the registry store port; exported here too, where it always was. */
export { RegistryConflictError };

const REGISTRY_FIX = 'fed will not overwrite it; restore .fed/team-registry.json from a backup';

/** Parse registry text; a broken file is reported with its path and problem and never replaced. */
export function parseRegistry(text: string, file: string): Registry {
  return parseJsonFile(text, file, registrySchema);
}

/**
 * The last registry this process validated: its exact text, and that text parsed (when first needed),
 * never handed out. One command reads the registry several times (`fed event`: to find the team, under
 * the state lock, to send the transition report, to refresh lastActive, to sync the status), and
 * validating it is what costs — milliseconds per read in a federation of a few hundred teams, against
 * microseconds to read the file. The file is still read every time, so a change by any process is seen
 * at once: only a byte-identical text is not validated again. Callers may change what they get
 * (updateRegistry does), so each gets its own copy (ownCopy).
 */
interface Validated {
  file: string;
  text: string;
  /** The text parsed: what zod's parse returned for it (parseValidatedRegistry). */
  registry?: Registry;
  /** Whether copyFlatRegistry copies `registry` whole. */
  flat?: boolean;
}
let lastValidated: Validated | undefined;

/** What `validated` parsed to, parsed once. */
function parsed(validated: Validated): Registry {
  validated.registry ??= parseValidatedRegistry(validated.text);
  return validated.registry;
}

/**
 * A copy of the validated registry of the caller's own: the entries copied (a sixth of parsing the text
 * again), or, when a field holds an object a copy would share, the text parsed again.
 */
function ownCopy(validated: Validated): Registry {
  const registry = parsed(validated);
  validated.flat ??= isFlatRegistryText(validated.text, registry);
  return validated.flat ? copyFlatRegistry(registry) : parseValidatedRegistry(validated.text);
}

/**
 * The registry, validated, each team's `lastActive` its latest activity (team-activity-file.ts).
 * `validation`: what fed remembers of the registry texts it validated, across commands
 * (registry-validation.ts); without one, a reader only reads that and never writes it.
 */
export function readRegistry(root: string, validation = new RegistryValidation(root)): Registry {
  const file = federationPaths(root).registry;
  // The activity before the registry: a fold between the two reads is then never missed (readTeamActivity).
  const activity = readTeamActivity(root);
  const read = readIdentifiedTextFile(file, REGISTRY_FIX);
  if (read === undefined)
    throw new NotAFederationError(`${root} is not an initialised federation (no ${file}); run: fed init`);
  const registry = validatedRegistry(read.text, file, validation, read);
  foldTeamActivity(registry, activity);
  return registry;
}

/**
 * `text` validated as the registry, in a copy of its own: validated again only when it is neither the text
 * this process validated last nor the one fed remembers validating (`stamp`: of the file it was read from).
 */
function validatedRegistry(text: string, file: string, validation: RegistryValidation, stamp?: ReadStamp): Registry {
  if (lastValidated?.file !== file || lastValidated.text !== text) {
    if (!validation.validated(text, stamp)) {
      parseRegistry(text, file);
      validation.remember(text, stamp);
    }
    lastValidated = { file, text };
  }
  // Every copy made from the text, the first too: its keys in the text's order, as a later write compares them.
  return ownCopy(lastValidated);
}

/**
 * After a write: when what was written is valid — the entries it changed validated, the others those of
 * the registry validated under the lock — it is remembered as validated, so no reader validates it whole.
 */
function rememberWrite(
  file: string,
  base: string,
  written: { text: string; registry: Registry },
  validation: RegistryValidation,
): void {
  const { text, registry } = written;
  if (text.length < REMEMBERED_FROM_BYTES || lastValidated?.file !== file || lastValidated.text !== base) return;
  // The registry validated under the lock as it was read (the caller's copy of it went to a mutation).
  if (!validWrite(registry, parsed(lastValidated))) return;
  lastValidated = { file, text };
  validation.remember(text);
}

/**
 * Only the version, for the check under the commit lock: the caller validated the whole registry when it
 * read it, and keeping the locked section short is what lets concurrent writers through.
 */
function lockVersionIn(text: string, file: string): number {
  let version: unknown;
  try {
    version = (JSON.parse(text) as { lockVersion?: unknown }).lockVersion;
  } catch (error) {
    throw new CorruptFileError(file, `not valid JSON (${(error as Error).message})`);
  }
  if (!Number.isInteger(version)) throw new CorruptFileError(file, 'lockVersion: expected an integer');
  return version as number;
}

function readCommitted(file: string): string {
  const text = readTextFile(file, REGISTRY_FIX);
  if (text === undefined) throw new NotAFederationError(`${file} disappeared; run: fed init`);
  return text;
}

export interface CommitOptions extends WriteOptions {
  lock?: LockOptions;
  now?: () => Date;
  /** What fed remembers of the registry texts it validated (registry-validation.ts). */
  validation?: RegistryValidation;
}

/** What a writer holding the commit lock decided from the registry's text: what to write on top of which version, or nothing. */
type Decision = { write: Registry; base: number } | { unchanged: Registry };

/**
 * Take the commit lock, read the registry, `decide`, and write what it decided at `base + 1` — with
 * `lastUpdated` now (docs/design/spec.md §4.3). Right before the rename, once the new content is durable,
 * the lock and the file are checked again: a writer that stalled inside the lock (slow fsync, SIGSTOP)
 * and lost it meanwhile gets a conflict and retries on top of the newer registry instead of overwriting
 * it. The file must still be the very text read under the lock: a stronger check than its version, and
 * cheaper than parsing it again.
 */
async function commitUnderLock(
  root: string,
  options: CommitOptions,
  decide: (text: string, file: string) => Decision,
): Promise<RegistryUpdate> {
  const paths = federationPaths(root);
  const file = paths.registry;
  const validation = options.validation ?? new RegistryValidation(root);
  return withLock(
    paths.registryLock,
    (handle) => {
      const text = readCommitted(file);
      const decision = decide(text, file);
      // Appends take no lock: under it, only what a write folds in is taken from them (and goes after it).
      if ('unchanged' in decision) {
        foldTeamActivity(decision.unchanged, readTeamActivity(root));
        return { registry: decision.unchanged, changed: false };
      }
      holdActivityForFold(root);
      const { base } = decision;
      const written: Registry = {
        ...decision.write,
        lastUpdated: (options.now?.() ?? new Date()).toISOString(),
        lockVersion: nextLockVersion(base, file),
      };
      foldTeamActivity(written, readTeamActivity(root, { forFold: true }));
      const beforeReplace = () => {
        try {
          assertLockHeld(handle);
        } catch (error) {
          if (!(error instanceof LockLostError)) throw error;
          throw new RegistryConflictError(file, base, lockVersionIn(readCommitted(file), file));
        }
        const now = readCommitted(file);
        if (now !== text) throw new RegistryConflictError(file, base, lockVersionIn(now, file));
      };
      const writtenText = toJsonText(written);
      writeFileAtomic(file, writtenText, { ...options, beforeReplace });
      activityFolded(root);
      try {
        rememberWrite(file, text, { text: writtenText, registry: written }, validation);
      } catch {
        // Only a hint, after the write landed: a registry fed cannot show valid (one nested past what its
        // comparison follows) is validated whole by its next reader.
      }
      return { registry: written, changed: true };
    },
    options.lock,
  );
}

/**
 * Compare-and-swap: write `next` only if the registry is still at `expectedVersion`, setting
 * `lastUpdated` and `lockVersion = expectedVersion + 1` (docs/design/spec.md §4.3). The short commit lock makes the
 * check and the atomic replace one step; the version check is what detects lost updates.
 */
export async function commitRegistry(
  root: string,
  expectedVersion: number,
  next: Registry,
  options: CommitOptions = {},
): Promise<Registry> {
  const { registry } = await commitUnderLock(root, options, (text, file) => {
    const currentVersion = lockVersionIn(text, file);
    if (currentVersion !== expectedVersion) throw new RegistryConflictError(file, expectedVersion, currentVersion);
    return { write: next, base: expectedVersion };
  });
  return registry;
}

/**
 * Read-modify-write under the commit lock: the registry is read and validated there, `mutate` runs on
 * it, and what it returns is written on top of the version read. No other writer lands in between, so
 * contending writers take turns instead of each reading outside the lock, losing the race to it, and
 * going round again (re-read, back off, lock again) to lose it again.
 */
export async function updateRegistryFile(
  root: string,
  mutate: RegistryMutation,
  options: CommitOptions = {},
): Promise<RegistryUpdate> {
  return commitUnderLock(root, options, (text, file) => {
    // Usually the very text the writer read before (`fed event` reads the registry, then refreshes a
    // team's lastActive): validated once for both.
    const validation = options.validation ?? new RegistryValidation(root);
    const current = validatedRegistry(text, file, validation);
    const next = mutate(current);
    // Nothing to write: the registry as it is, in a copy of its own (mutate had the other, and may have changed it).
    return next === undefined
      ? { unchanged: validatedRegistry(text, file, validation) }
      : { write: next, base: current.lockVersion };
  });
}
