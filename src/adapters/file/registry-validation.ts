import { dirname } from 'node:path';
import { FedError } from '../../core/errors.js';
import { federationPaths } from './file-layout.js';
import {
  REGISTRY_SCHEMA_REVISION,
  registryEntrySchema,
  registrySchema,
  type Registry,
} from '../../core/schema/registry.js';
import { sha256 } from '../../infra/crypto/sha256.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';
import type { CheckedRootFolders } from '../checked-root-folders.js';

/**
 * Below this, a registry (about 180 teams) is validated by every command that reads it, as it always was:
 * remembering costs a file read, about what validating it costs.
 */
export const REMEMBERED_FROM_BYTES = 64 * 1024;

/**
 * Of the registry file a text was read from: its identity (fileIdentity), when it last changed (its ctime,
 * ms, looked at after the read) and when it was read (this clock, ms, just after that look).
 */
export interface ReadStamp {
  identity: string;
  changedMs: number;
  readAtMs: number;
}

/**
 * How long a file must have been unchanged when it was read for its identity to be kept or believed: a
 * change within the same tick of the filesystem's clock as the one before it can leave size, mtime and
 * ctime as they were (git's "racily clean" entries), and no change can be made to a file in the past.
 * Judged at the read, not later (a long validation or a stopped process between would make a file just
 * changed look settled), and against this machine's clock: on a network filesystem whose server's clock
 * is behind by more than this, a change of the same size in the same tick could go unseen.
 */
const SETTLED_MS = 2_000;

/**
 * Which registry text fed validated last, across commands: validating a large registry is what grows
 * with the federation (zod on each entry, ~40 µs per entry before the code is warm: a command reading a
 * registry of 1 000 teams spent more on it than on everything else it did). fed keeps the SHA-256 of the
 * last text it validated whole — read and validated, or written with every entry it changed validated —
 * in `.fed/team-registry.json.validated`; a command reading byte for byte that text again parses it and
 * uses it without validating it again: it is the very data validated. Any other text (a change by an older
 * fed, a hand edit, a torn write) has another digest and is validated whole. Only ever a hint: missing,
 * unreadable or stale means validating, and it is written best effort, without fsync.
 *
 * Beside the digest, once the file has not changed for SETTLED_MS, fed keeps the identity of the file it
 * was read from (inode, size, mtime and ctime in ns, of the descriptor read, taken as it was opened): a
 * reader finding that very identity is reading that very text, and spares hashing it (and `fed team show`
 * loading node:crypto, a tenth of a bare node start). Any change to the file — a rename over it, a write
 * in place — gives it a ctime no one can set back, so another identity, and the digest decides again; and
 * a file changed within SETTLED_MS before it was read (a write in place under way as it was read, say)
 * is never kept or believed by identity.
 */
export class RegistryValidation {
  private readonly file: string;

  constructor(
    root: string,
    /** The root's runtime folders, checked before the digest is written; none: it is never written. */
    private readonly folders?: CheckedRootFolders,
  ) {
    this.file = federationPaths(root).registryValidated;
  }

  /**
   * Whether `text` is the registry text fed last validated whole (always false for a small one); `stamp`:
   * of the file it was read from.
   */
  validated(text: string, stamp?: ReadStamp): boolean {
    if (text.length < REMEMBERED_FROM_BYTES) return false;
    let kept: string[];
    try {
      const read = readFileBounded(this.file, { maxBytes: 1024, noFollow: true });
      if (!read.ok) return false;
      kept = read.bytes.toString('utf8').split('\n');
    } catch {
      return false;
    }
    // Believed only of a file settled when it was read: one written in place while it was read has the
    // identity it had before, and bytes of the write.
    if (stamp !== undefined && settled(stamp) && kept[1] === identityLine(stamp)) return true;
    if (kept[0] !== digest(text)) return false;
    // The very text under an identity not kept (settled since it was validated, or copied): kept now.
    if (stamp !== undefined && settled(stamp)) this.write(text, stamp);
    return true;
  }

  /** Remember that `text` was validated whole (`stamp`: of the file it was read from, if it was read). */
  remember(text: string, stamp?: ReadStamp): void {
    if (text.length >= REMEMBERED_FROM_BYTES) this.write(text, stamp);
  }

  private write(text: string, stamp: ReadStamp | undefined): void {
    if (this.folders === undefined) return;
    try {
      this.folders.beforeWrite(dirname(this.file));
      const identity = stamp !== undefined && settled(stamp) ? `\n${identityLine(stamp)}` : '';
      writeFileAtomic(this.file, `${digest(text)}${identity}`, { durable: false });
    } catch (error) {
      // Only a hint: a federation fed cannot write to validates each time.
      if (!(error instanceof FedError) && !(error as NodeJS.ErrnoException).code) throw error;
    }
  }
}

/** Whether the file had not changed for SETTLED_MS when it was read (a ctime ahead of the clock had not). */
function settled(stamp: ReadStamp): boolean {
  return stamp.readAtMs - stamp.changedMs >= SETTLED_MS;
}

/** The identity as kept: with the schema revision, as the digest is (a newer fed validates again). */
function identityLine(stamp: ReadStamp): string {
  return `${REGISTRY_SCHEMA_REVISION} ${stamp.identity}`;
}

/**
 * Whether `written` is a valid registry, validating only its envelope and the entries that are not, to the
 * byte, entries of `before` (a registry validated whole): together, what validating it whole checks. A
 * write that keeps the teams where they were (a lastActive refresh, a status change) is compared entry by
 * entry with the one at its index, without making their text; one that adds, removes or reorders teams
 * looks each entry up among the texts of all of `before`'s.
 */
export function validWrite(written: Registry, before: Registry): boolean {
  if (!registrySchema.safeParse({ ...written, teams: [] }).success) return false;
  // An entry is validated as it is written: what JSON makes of it (a hole is null; a toJSON, another
  // prototype or a key JSON drops are written as JSON writes them).
  const validEntry = (entry: unknown) =>
    registryEntrySchema.safeParse(JSON.parse(JSON.stringify(entry) ?? 'null') as unknown).success;
  const { teams } = written;
  // By index, not every(): a hole in the array is an entry too (JSON writes it as null).
  if (teams.length === before.teams.length) {
    for (let i = 0; i < teams.length; i++)
      if (!sameJson(teams[i], before.teams[i]) && !validEntry(teams[i])) return false;
    return true;
  }
  const known = new Set(before.teams.map((entry) => JSON.stringify(entry)));
  for (let i = 0; i < teams.length; i++)
    if (!known.has(JSON.stringify(teams[i]) ?? 'null') && !validEntry(teams[i])) return false;
  return true;
}

/**
 * Whether `value` has the JSON text of `validated` (parsed JSON): the same keys in the same order, with
 * the same values. Anything JSON would write otherwise (another prototype, a toJSON method, NaN) is not.
 */
function sameJson(value: unknown, validated: unknown): boolean {
  if (typeof validated !== 'object' || validated === null) return value === validated;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(validated))
    return (
      Array.isArray(value) &&
      value.length === validated.length &&
      validated.every((item, i) => sameJson(value[i], item))
    );
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.getPrototypeOf(validated)) return false;
  const keys = Object.keys(validated);
  const valueKeys = Object.keys(value);
  return (
    keys.length === valueKeys.length &&
    keys.every(
      (key, i) =>
        valueKeys[i] === key &&
        sameJson((value as Record<string, unknown>)[key], (validated as Record<string, unknown>)[key]),
    )
  );
}

/** Of the text and the schema revision it was validated against. */
function digest(text: string): string {
  return sha256(`${REGISTRY_SCHEMA_REVISION}\0${text}`).toString('hex');
}

/**
 * A registry text fed validated, parsed as zod's parse returned it but for the order of keys: zod drops
 * an own `__proto__` key of the objects its schemas describe — the envelope and each entry — which
 * JSON.parse keeps; one inside a value it does not know (a newer fed's field) it keeps, and so does this.
 */
export function parseValidatedRegistry(text: string): Registry {
  const registry = JSON.parse(text) as Registry;
  if (!text.includes('"__proto__"')) return registry;
  const dropProto = (record: object) => {
    if (Object.hasOwn(record, '__proto__')) delete (record as Record<string, unknown>)['__proto__'];
  };
  dropProto(registry);
  registry.teams.forEach(dropProto);
  return registry;
}
