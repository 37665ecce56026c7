import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { EnvelopeVersion } from '../../ports/lifecycle-store.js';
import type { LifecycleChange, TeamLifecycle } from './lifecycle-types.js';

/**
 * Ids of the signals among `inputs` that another process took after the caller read them, found under
 * the team's section. With dedupe `until-ack` an id leaves the dedupe record once its acknowledgment is
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
): Promise<Set<string>> {
  const taken = new Set<string>();
  const { envelope } = lifecycle;
  if (readAgainst === undefined || lifecycle.version === readAgainst || !envelope.dedupe) return taken;
  const recorded = new Set([...envelope.processed, ...(envelope.held ?? []).map((h) => h.id)]);
  const unread = inputs.filter((input) => input.source === 'signal' && !recorded.has(input.signal.id));
  if (unread.length === 0) return taken;
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  for (const input of unread) {
    if (input.source !== 'signal') continue;
    const { id } = input.signal;
    // By its handle when the caller gave it (a look at one entry), else by id.
    const found = input.file === undefined ? undefined : await inbox.lookup(input.file);
    const copies =
      found === undefined
        ? await inbox.find(id)
        : 'signal' in found && found.signal.message.id === id
          ? [found.signal]
          : [];
    if (copies.some((copy) => copy.message.acknowledged)) taken.add(id);
  }
  return taken;
}
