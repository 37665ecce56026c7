import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { EnvelopeVersion } from '../../ports/lifecycle-store.js';
import type { BoxLookup, SignalEntry } from '../../ports/signal-transport.js';
import type { LifecycleChange, TeamLifecycle } from './lifecycle-types.js';

/**
 * The signals among `inputs` that another process took after the caller read them, found under the
 * team's section. With dedupe `until-ack` an id leaves the dedupe record once its acknowledgment is
 * durable; so a caller that read a signal unacknowledged and then waited for the section — while another
 * process applied it, acknowledged it and, at its next write, let it go — would find it in neither and
 * apply it twice. Each signal the record and the held list do not hold is looked up again here, and one
 * acknowledged now is taken (fed acknowledges only what is applied, held or ignored).
 *
 * Nothing is looked up when the lifecycle under the section is still at the version loaded before the
 * caller read the inbox (`readAgainst`: no process wrote since, so none let an id go), when the caller
 * read no inbox (its signals are given as they are), nor for an envelope of an earlier release, whose
 * record is every id it ever applied.
 */
export async function takenSinceRead(
  backend: FederationBackend,
  team: RegistryEntry,
  lifecycle: TeamLifecycle,
  inputs: readonly LifecycleChange[],
  readAgainst: EnvelopeVersion | undefined,
): Promise<TakenSinceRead> {
  const found: TakenSinceRead = { taken: new Set(), gone: new Set() };
  const { envelope } = lifecycle;
  if (readAgainst === undefined || lifecycle.version === readAgainst || !envelope.dedupe) return found;
  const recorded = new Set([...envelope.processed, ...(envelope.held ?? []).map((h) => h.id)]);
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  for (const input of inputs) {
    if (input.source !== 'signal' || recorded.has(input.signal.id)) continue;
    const { id } = input.signal;
    // By its handle when the caller gave it (a look at one entry), else by id.
    const copies = input.file === undefined ? await inbox.find(id) : carrying(await inbox.lookup(input.file), id);
    if (copies.length === 0) found.gone.add(id);
    else if (copies.some((copy) => copy.message.acknowledged)) found.taken.add(id);
  }
  return found;
}

export interface TakenSinceRead {
  /** Acknowledged since the caller read them: duplicates. */
  taken: Set<string>;
  /**
   * No longer in the inbox as the caller read them (archived — which takes acknowledged signals only —,
   * removed or replaced): not applied, nor acknowledged.
   */
  gone: Set<string>;
}

function carrying(found: BoxLookup | undefined, id: string): SignalEntry[] {
  return found && 'signal' in found && found.signal.message.id === id ? [found.signal] : [];
}
