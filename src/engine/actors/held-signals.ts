import type { HeldSignal } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { LifecycleChange } from './lifecycle-types.js';

export type SignalInput = Extract<LifecycleChange, { source: 'signal' }>;

/**
 * The envelope's held signals, read back from the team's inbox. One that is gone or no longer the signal
 * with that id cannot be applied: it is dropped with a warning (someone removed or replaced it by hand).
 */
export async function readHeldSignals(
  backend: FederationBackend,
  team: RegistryEntry,
  held: readonly HeldSignal[],
  warnings: string[],
): Promise<SignalInput[]> {
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  const inputs: SignalInput[] = [];
  for (const { id, file } of held) {
    const found = await inbox.lookup(file);
    if (found && 'signal' in found && found.signal.message.id === id)
      inputs.push({ source: 'signal', signal: found.signal.message, file });
    else
      warnings.push(
        `team "${team.domainId}": the held signal ${id} (${file} in ${inbox.location}) ${found ? ('signal' in found ? 'now holds another signal' : `is no longer valid (${found.invalid.reason})`) : 'is gone'}; it is not applied`,
      );
  }
  return inputs;
}

/** Inbox order by timestamp; the sort is stable, so signals of one instant keep the order they were given or held in. */
export function inInboxOrder(a: SignalInput, b: SignalInput): number {
  return Date.parse(a.signal.timestamp) - Date.parse(b.signal.timestamp);
}
