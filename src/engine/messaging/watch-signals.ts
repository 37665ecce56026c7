import type { SignalSubscription, WatchOptions } from '../../ports/signal-transport.js';
import { resolveParty } from '../../core/resolve-party.js';
import type { Federation } from '../context.js';

/**
 * Watch a team's (or meta's) inbox (`fed signal watch`; spec: "A recipient checks its inbox
 * periodically"). Archived teams can be watched too: reading is history, not activity.
 */
export async function watchSignals(
  fed: Federation,
  team: string,
  options: WatchOptions = {},
): Promise<SignalSubscription> {
  const { backend } = fed;
  const party = resolveParty(await backend.registry.read(), team, { role: 'team (--team)', allowArchived: true });
  return backend.signals.inbox(party).watch(options);
}
