import type { FederationBackend } from '../../ports/federation-backend.js';
import type { SignalEntry } from '../../ports/signal-transport.js';
import type { SignalBox } from '../../core/schema/signal.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { findTeam } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { SentFact } from '../../core/schema/delivery.js';
import type { Registry } from '../../core/schema/registry.js';
import { findArchivedSignal } from '../../adapters/file/archive/box-archive.js';

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
 * searched before its archive (`fed signal archive`, kept beside a file box).
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
  let live: SignalEntry | undefined;
  let location: string;
  if (box === 'inbox') {
    const inbox = backend.signals.inbox(party);
    live = (await inbox.find(id, sent))[0];
    location = inbox.location;
  } else {
    const outbox = backend.signals.outbox(party);
    live = (await outbox.list()).signals.find((s) => s.message.id === id);
    location = outbox.location;
  }
  if (live) return { entry: live, box, owner, archived: false };
  const archived = findArchivedSignal(location, { owner, box }, id, sent);
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
