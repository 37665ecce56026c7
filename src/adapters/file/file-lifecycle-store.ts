import { lstatSync } from 'node:fs';
import { LifecycleConflictError } from '../../errors.js';
import { ensureDirectory } from '../../fs/ensure-directory.js';
import { assertLockHeld, withLock } from '../../fs/lock.js';
import { workspacePaths } from '../../layout.js';
import type { EnvelopeVersion, LifecycleSection, LifecycleStore, LifecycleWriteOptions, StoredEnvelope } from '../../ports/lifecycle-store.js';
import { appendJournalLines, readEnvelope, readJournalTail, writeEnvelope } from '../../actors/state-files.js';
import type { JournalLine, LifecycleEnvelope } from '../../schema/lifecycle-state.js';
import type { RegistryEntry } from '../../schema/registry.js';

/**
 * Broken only when its holder's process is gone, never by age: the section may legitimately wait on the
 * registry or a slow disk, and taking over a live holder's lock would lose its write.
 */
const STATE_LOCK = { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 60_000 };

/**
 * A team's lifecycle in `<workspace>/.fed/state/`: `lifecycle.json` (the envelope, replaced atomically
 * and durably), `journal.jsonl` (appended), and `lifecycle.lock` (the exclusive section). An envelope's
 * version is the identity of its file: every write replaces it with a new file (a new inode).
 */
export class FileLifecycleStore implements LifecycleStore {
  envelopeLocation(team: RegistryEntry): string {
    return workspacePaths(team.location).envelope;
  }

  /** A stat: every write replaces the file (a new inode), so an unchanged stat means an unchanged envelope. */
  async version(team: RegistryEntry): Promise<EnvelopeVersion> {
    return envelopeVersion(team);
  }

  async read(team: RegistryEntry): Promise<StoredEnvelope | undefined> {
    // The version is the stat around the read; a replace in between is seen as a changed stat and read again.
    for (;;) {
      const before = envelopeVersion(team);
      const envelope = readEnvelope(team.location);
      const after = envelopeVersion(team);
      if (before !== after) continue;
      return envelope === undefined ? undefined : { envelope, version: after };
    }
  }

  async write(
    team: RegistryEntry,
    envelope: LifecycleEnvelope,
    expected: EnvelopeVersion,
    section: LifecycleSection,
    options: LifecycleWriteOptions = {},
  ): Promise<EnvelopeVersion> {
    writeEnvelope(team.location, envelope, {
      durable: options.durable ?? true,
      // Checked once the new content is durable, right before the rename: a writer that lost its section
      // meanwhile (removed by hand, or fed doctor) or read an older envelope must not write.
      beforeReplace: () => {
        section.assertHeld();
        if (envelopeVersion(team) !== expected) throw new LifecycleConflictError(team.domainId, this.envelopeLocation(team));
      },
    });
    return envelopeVersion(team);
  }

  async exclusive<T>(team: RegistryEntry, fn: (section: LifecycleSection) => Promise<T>, options: LifecycleWriteOptions = {}): Promise<T> {
    const paths = workspacePaths(team.location);
    ensureDirectory(paths.state, options);
    return withLock(paths.stateLock, (lock) => fn({ team: team.domainId, assertHeld: () => assertLockHeld(lock) }), STATE_LOCK);
  }

  async appendJournal(team: RegistryEntry, lines: readonly JournalLine[], options: LifecycleWriteOptions = {}): Promise<number> {
    return appendJournalLines(team.location, lines, options);
  }

  async journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]> {
    return readJournalTail(team.location, count);
  }
}

/** `ino:size:mtime:ctime` of the envelope file, or null when there is none. */
function envelopeVersion(team: RegistryEntry): EnvelopeVersion {
  try {
    const stat = lstatSync(workspacePaths(team.location).envelope, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
