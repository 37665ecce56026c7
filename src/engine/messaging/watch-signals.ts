import type { SignalSubscription, WatchOptions } from '../../ports/signal-transport.js';
import { assertOwnParty, resolveParty, type CallerOption } from '../../core/resolve-party.js';
import type { Federation } from '../context.js';

/**
 * Watch a team's (or meta's) inbox (`fed signal watch`; spec: "A recipient checks its inbox
 * periodically"). Archived teams can be watched too: reading is history, not activity.
 */
export async function watchSignals(
  fed: Federation,
  team: string,
  options: WatchOptions & CallerOption = {},
): Promise<SignalSubscription> {
  const { backend } = fed;
  const registry = await backend.registry.read();
  const party = resolveParty(registry, team, { role: 'team (--team)', allowArchived: true });
  assertOwnParty(registry, options.caller, party.id, 'team (--team)');
  return backend.signals.inbox(party).watch(options);
}
