import { openBackend } from '../../adapters/open-backend.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { SignalSubscription, WatchOptions } from '../../ports/signal-transport.js';
import { resolveParty } from '../../core/resolve-party.js';

/**
 * Watch a team's (or meta's) inbox (`fed signal watch`; spec: "A recipient checks its inbox
 * periodically"). Archived teams can be watched too: reading is history, not activity.
 */
export async function watchSignals(root: string, team: string, options: WatchOptions = {}, backend: FederationBackend = openBackend(root)): Promise<SignalSubscription> {
  const party = resolveParty(await backend.registry.read(), team, { role: 'team (--team)', allowArchived: true });
  return backend.signals.inbox(party).watch(options);
}
