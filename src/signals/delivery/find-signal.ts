import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { META } from '../../schema/common.js';
import type { SentFact } from '../../schema/delivery.js';
import type { Registry } from '../../schema/registry.js';
import { archiveDirectoryOf } from '../archive/box-archive.js';
import { type SignalBox } from '../parse-signal-file.js';
import { judgeAck, judgeSignal, type BoxExpectation } from '../../schema/judge-signal.js';
import { withAck, type SignalEntry } from '../read-signals.js';
import { resolveSignalWorkspace } from '../resolve-workspace.js';
import { ackFileName, isSignalFileName, sameSubjectPattern } from '../signal-file-name.js';
import { readValidFile } from './read-valid-file.js';

/** A signal found by id: its copy in the recipient's inbox when there is one, else the sender's outbox copy. */
export interface LocatedSignal {
  entry: SignalEntry;
  box: SignalBox;
  /** Whose box it is in. */
  owner: string;
  /** In the box's `archive/` folder rather than the live box. */
  archived: boolean;
}

/**
 * Find signal `id`. With its sent fact, only the few files named for its type and subject in the
 * recipient's inbox (live, then archive) and the sender's outbox are read; a signal without one (sent by
 * an older fed or another tool) is searched in every box of the federation.
 */
export function findSignalById(root: string, registry: Registry, id: string, sent: SentFact | undefined): LocatedSignal | undefined {
  const wanted = id.toLowerCase();
  const places = sent ? [{ party: sent.to, box: 'inbox' as const }, { party: sent.from, box: 'outbox' as const }] : everyBox(registry);
  const pattern = sent ? sameSubjectPattern(sent.type, sent.subject) : undefined;
  for (const { party, box } of places) {
    let dir: string;
    try {
      dir = resolveSignalWorkspace(root, party, { allowArchived: true, registry })[box];
    } catch {
      // A removed team's boxes are gone from the registry, so there is nowhere to look.
      continue;
    }
    for (const [where, archived] of [[dir, false], [archiveDirectoryOf(dir), true]] as const) {
      const entry = findInDirectory(where, { owner: party, box }, wanted, pattern);
      if (entry) return { entry, box, owner: party, archived };
    }
  }
  return undefined;
}

function everyBox(registry: Registry): { party: string; box: SignalBox }[] {
  const parties = [META, ...registry.teams.map((t) => t.domainId)];
  return [...parties.map((party) => ({ party, box: 'inbox' as const })), ...parties.map((party) => ({ party, box: 'outbox' as const }))];
}

/** The valid signal `id` among the files of `dir` (matching `pattern` when given), its ack merged in for an inbox. */
function findInDirectory(dir: string, expect: BoxExpectation, id: string, pattern: RegExp | undefined): SignalEntry | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
  for (const file of names) {
    if (!isSignalFileName(file) || (pattern && !pattern.test(file))) continue;
    const message = readValidFile(join(dir, file), (bytes) => judgeSignal(bytes, expect));
    if (!message || message.id !== id) continue;
    if (expect.box === 'outbox') return { file, path: join(dir, file), message };
    const ack = readValidFile(join(dir, ackFileName(file)), judgeAck);
    return { file, path: join(dir, file), message: withAck(message, ack && { ok: true, value: ack }) };
  }
  return undefined;
}
