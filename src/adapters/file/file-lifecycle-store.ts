import { type BigIntStats, lstatSync, lutimesSync } from 'node:fs';
import { fileIdentity } from '../../infra/fs/read-file-bounded.js';
import { LifecycleConflictError } from '../../core/errors.js';
import { assertLockHeld, inspectLock, withLock } from '../../infra/fs/lock.js';
import { workspacePaths } from './file-layout.js';
import type { CheckedWorkspaces } from '../checked-workspaces.js';
import type {
  EnvelopeVersion,
  KeptRun,
  LifecycleSection,
  LifecycleStore,
  LifecycleWriteOptions,
  StoredEnvelope,
} from '../../ports/lifecycle-store.js';
import { appendJournalLines, readIdentifiedEnvelope, readJournalTail, writeEnvelope } from './state-files.js';
import type { JournalLine, LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { keepCurrentRun, keptRunsOf, runJournal } from './file-run-history.js';

/**
 * Broken only when its holder's process is gone, never by age: the section may legitimately wait on the
 * registry or a slow disk, and taking over a live holder's lock would lose its write.
 */
const STATE_LOCK = { staleMs: Number.POSITIVE_INFINITY, timeoutMs: 60_000 };

/**
 * A team's lifecycle in `<workspace>/.fed/state/`: `lifecycle.json` (the envelope, replaced atomically
 * and durably), `journal.jsonl` (appended), and `lifecycle.lock` (the exclusive section); earlier runs in
 * `<workspace>/.fed/history/run-<n>/` (src/adapters/file/file-run-history.ts). An envelope's
 * version is the identity of its file: every write replaces it with a new file (a new inode).
 */
export class FileLifecycleStore implements LifecycleStore {
  /** Writes go only to a workspace inside the root that no link leads into (checked before each write). */
  constructor(private readonly workspaces: CheckedWorkspaces) {}

  envelopeLocation(team: RegistryEntry): string {
    return workspacePaths(team.location).envelope;
  }

  /** A stat: every write replaces the file (a new inode), so an unchanged stat means an unchanged envelope. */
  async version(team: RegistryEntry): Promise<EnvelopeVersion> {
    return envelopeVersion(team);
  }

  async read(team: RegistryEntry): Promise<StoredEnvelope | undefined> {
    // The version is the identity of the very file read (its descriptor's stat): a replace during the
    // read cannot pair the bytes of one file with the version of another.
    const read = readIdentifiedEnvelope(team.location);
    return read && { envelope: read.value, version: read.identity };
  }

  async write(
    team: RegistryEntry,
    envelope: LifecycleEnvelope,
    expected: EnvelopeVersion,
    section: LifecycleSection,
    options: LifecycleWriteOptions = {},
  ): Promise<EnvelopeVersion> {
    await writeEnvelope(team.location, envelope, {
      durable: options.durable ?? true,
      // Checked once the new content is durable, right before the rename: a writer that lost its section
      // meanwhile (removed by hand, or fed doctor) or read an older envelope must not write.
      beforeReplace: (tmp) => {
        section.assertHeld();
        const current = envelopeStat(team);
        if ((current ? fileIdentity(current) : null) !== expected)
          throw new LifecycleConflictError(team.domainId, this.envelopeLocation(team));
        if (current) stampAfter(tmp, current);
      },
    });
    return envelopeVersion(team);
  }

  async exclusive<T>(
    team: RegistryEntry,
    fn: (section: LifecycleSection) => Promise<T>,
    options: LifecycleWriteOptions = {},
  ): Promise<T> {
    const paths = workspacePaths(team.location);
    this.workspaces.folderForWrite(team, paths.state, options);
    return withLock(
      paths.stateLock,
      (lock) => fn({ team: team.domainId, assertHeld: () => assertLockHeld(lock) }),
      STATE_LOCK,
    );
  }

  /** Its lock file, judged as a waiter for it judges it: on this host by its process, elsewhere it counts as held. */
  async sectionHolder(team: RegistryEntry): ReturnType<LifecycleStore['sectionHolder']> {
    const lock = inspectLock(workspacePaths(team.location).stateLock, STATE_LOCK);
    return lock && !lock.abandoned ? { owner: lock.owner } : undefined;
  }

  async appendJournal(
    team: RegistryEntry,
    lines: readonly JournalLine[],
    options: LifecycleWriteOptions = {},
  ): Promise<number> {
    if (lines.length > 0) this.workspaces.folderForWrite(team, workspacePaths(team.location).state, options);
    return appendJournalLines(team.location, lines, options);
  }

  async journalTail(team: RegistryEntry, count: number): Promise<JournalLine[]> {
    return readJournalTail(team.location, count);
  }

  async journal(team: RegistryEntry, run?: number): Promise<JournalLine[]> {
    return runJournal(team.location, run);
  }

  async keptRuns(team: RegistryEntry): Promise<KeptRun[]> {
    return keptRunsOf(team.location);
  }

  async keepRun(team: RegistryEntry, section: LifecycleSection, options: LifecycleWriteOptions = {}): Promise<KeptRun> {
    section.assertHeld();
    // The run moves out of the state folder into .fed/history: both are checked.
    this.workspaces.beforeWrite(team, workspacePaths(team.location).state);
    this.workspaces.beforeWrite(team, workspacePaths(team.location).history);
    return keepCurrentRun(team.location, options);
  }
}

/**
 * The identity (fileIdentity) of the envelope file, as a read opens it (never through a link: a link
 * there is refused by the read, and here is its own identity); null when there is none.
 */
function envelopeVersion(team: RegistryEntry): EnvelopeVersion {
  const stat = envelopeStat(team);
  return stat ? fileIdentity(stat) : null;
}

function envelopeStat(team: RegistryEntry): BigIntStats | undefined {
  try {
    return lstatSync(workspacePaths(team.location).envelope, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Give the new envelope file a modification time after the one it replaces, so a version never comes
 * back. A reader that noted a version before reading the inbox trusts, finding it again under the
 * section, that nobody wrote since (takenSinceRead); but ext4 hands a freed inode to the next new file
 * (an envelope's inode alternates between two numbers), sizes repeat, and before Linux 6.13 file times
 * move in clock ticks of up to 4 ms — three writes within one tick could give the first one's identity
 * back. The clock's time when it is past the old one; else the smallest step past it that the
 * filesystem keeps: ten microseconds (a time is set in seconds as a double, which Node's libuv cuts to
 * whole microseconds: one would be lost to rounding), or a second or two where file times are that
 * coarse (ext3, FAT) — there a burst of writes moves the envelope's time ahead of the clock, which
 * nothing reads. A filesystem that refuses to set times (some network mounts) keeps its own.
 */
function stampAfter(tmp: string, replaced: BigIntStats): void {
  for (const stepNs of [10_000n, 1_000_000_000n, 2_000_000_000n]) {
    const seconds = Math.max(Date.now() / 1000, Number(replaced.mtimeNs + stepNs) / 1e9);
    try {
      // Never through a link: the state folder is in the agent's workspace, and a link planted at the temp
      // path must not pass a time on to what it points at (the rename then puts the link in place, which a
      // read refuses).
      lutimesSync(tmp, seconds, seconds);
    } catch {
      return;
    }
    if (lstatSync(tmp, { bigint: true }).mtimeNs > replaced.mtimeNs) return;
  }
}
