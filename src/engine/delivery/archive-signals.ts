import { FedError, RefusedError } from '../../core/errors.js';
import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { PartyArchive } from '../../ports/signal-archive.js';
import type { SignalEntry } from '../../ports/signal-transport.js';
import { META } from '../../core/schema/common.js';
import { deadlineTable } from '../../core/deadlines.js';
import { resolveParty, type SignalParty } from '../../core/resolve-party.js';
import { SIGNAL_BOXES, type SignalBox } from '../../core/schema/signal.js';
import { DeliveryInspector } from './delivery-inspector.js';
import type { Federation } from '../context.js';

export interface ArchiveSignalsRequest {
  /** One party (a team id or domain, or `meta`); default: meta and every registered team. */
  team?: string;
  /** Only signals sent at least this long ago (milliseconds). */
  olderThanMs: number;
}

export interface ArchiveSignalsOptions extends WriteOptions {
  now?: Date;
}

export interface BoxArchiveResult {
  team: string;
  box: SignalBox;
  /** Signals moved to the box's archive by this call. */
  archived: number;
  /** Signal entries left in the live box (invalid ones included). */
  kept: number;
  /** Why the box was left alone (its workspace is one fed refuses to use); only when archiving every team. */
  skipped?: string;
}

/**
 * `fed signal archive`: move the signals that are done — acknowledged, or answered — and older than the
 * cutoff out of the live boxes into their archive (file-signal-v1: `<box>/archive/`), each inbox signal
 * with its acknowledgment; in an outbox, a copy whose inbox copy is acknowledged or answered. Nothing is
 * deleted. A backend whose transport does not archive refuses it (`ARCHIVE_UNSUPPORTED`) and changes nothing.
 */
export async function archiveSignals(
  fed: Federation,
  request: ArchiveSignalsRequest,
  options: ArchiveSignalsOptions = {},
): Promise<BoxArchiveResult[]> {
  const now = options.now ?? fed.now();
  const cutoff = now.getTime() - request.olderThanMs;
  const { backend } = fed;
  const { archive } = backend.signals;
  if (!archive.supported) {
    throw new RefusedError(
      'ARCHIVE_UNSUPPORTED',
      `fed signal archive moves signal files into each box's archive/ folder, and this federation keeps its signals in the ${backend.name} backend, ${archive.why}`,
    );
  }
  const registry = await backend.registry.read();
  const names = request.team === undefined ? [META, ...registry.teams.map((t) => t.domainId)] : [request.team];
  const inspector = new DeliveryInspector(backend, registry, deadlineTable(), now);
  const results: BoxArchiveResult[] = [];
  for (const name of names) {
    let party: SignalParty;
    let boxes: PartyArchive;
    try {
      party = resolveParty(registry, name, { role: 'team (--team)', allowArchived: true });
      boxes = archive.of(party);
    } catch (error) {
      // One team whose workspace is gone or refused must not keep every other box from being archived.
      if (request.team !== undefined || !(error instanceof FedError)) throw error;
      for (const box of SIGNAL_BOXES) results.push({ team: name, box, archived: 0, kept: 0, skipped: error.message });
      continue;
    }
    for (const box of SIGNAL_BOXES) {
      const count = await boxes.archive(box, {
        sentBy: cutoff,
        done: (entry) => isDone(entry, box, inspector, backend.delivery),
        durable: options.durable,
      });
      results.push({ team: party.id, box, ...count });
    }
  }
  return results;
}

async function isDone(
  entry: SignalEntry,
  box: SignalBox,
  inspector: DeliveryInspector,
  facts: DeliveryFactStore,
): Promise<boolean> {
  if (await facts.has(entry.message.id, 'answered')) return true;
  return box === 'inbox'
    ? entry.message.acknowledged === true
    : (await inspector.status(entry, box)).state === 'acknowledged';
}
