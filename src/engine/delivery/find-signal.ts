import type { FederationBackend } from '../../ports/federation-backend.js';
import type { SignalEntry } from '../../ports/signal-transport.js';
import type { SignalBox } from '../../core/schema/signal.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { findTeam } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { SentFact } from '../../core/schema/delivery.js';
import type { Registry } from '../../core/schema/registry.js';

/** A signal found by id: its copy in the recipient's inbox when there is one, else the sender's outbox copy. */
export interface LocatedSignal {
  entry: SignalEntry;
  box: SignalBox;
  /** Whose box it is in. */
  owner: string;
  /** In the box's archive rather than the live box. */
  archived: boolean;
}

/**
 * Find signal `id` through the federation's transport. With its sent fact, only the recipient's inbox
 * (which goes straight to the copy the fact names) and the sender's outbox are searched; a signal without
 * one (sent by an older fed or another tool) is searched in every box of the federation. Each live box is
 * searched before its archive (`fed signal archive`), on a transport that archives.
 */
export async function findSignalById(
  backend: FederationBackend,
  registry: Registry,
  id: string,
  sent: SentFact | undefined,
): Promise<LocatedSignal | undefined> {
  const wanted = id.toLowerCase();
  const places = sent
    ? [
        { owner: sent.to, box: 'inbox' as const },
        { owner: sent.from, box: 'outbox' as const },
      ]
    : everyBox(registry);
  for (const { owner, box } of places) {
    const found = await findInBox(backend, registry, owner, box, wanted, sent);
    if (found) return found;
  }
  return undefined;
}

/** Signal `id` (in lower case) in one party's box, live or archived. */
export async function findInBox(
  backend: FederationBackend,
  registry: Registry,
  owner: string,
  box: SignalBox,
  id: string,
  sent: SentFact | undefined,
): Promise<LocatedSignal | undefined> {
  const party = partyOf(registry, owner);
  // A removed team's boxes are gone from the registry, so there is nowhere to look.
  if (!party) return undefined;
  const live =
    box === 'inbox'
      ? (await backend.signals.inbox(party).find(id, sent))[0]
      : (await backend.signals.outbox(party).list()).signals.find((s) => s.message.id === id);
  if (live) return { entry: live, box, owner, archived: false };
  const { archive } = backend.signals;
  const archived = archive.supported ? await archive.of(party).find(box, id, sent) : undefined;
  return archived && { entry: archived, box, owner, archived: true };
}

function partyOf(registry: Registry, id: string): SignalParty | undefined {
  if (id === META) return { id: META, entry: undefined };
  const entry = findTeam(registry, id);
  return entry && { id: entry.domainId, entry };
}

function everyBox(registry: Registry): { owner: string; box: SignalBox }[] {
  const parties = [META, ...registry.teams.map((t) => t.domainId)];
  return [
    ...parties.map((owner) => ({ owner, box: 'inbox' as const })),
    ...parties.map((owner) => ({ owner, box: 'outbox' as const })),
  ];
}
