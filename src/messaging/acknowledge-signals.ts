import { openBackend } from '../backend/open-backend.js';
import { RefusedError } from '../errors.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { AckResult, AcknowledgeBatch, AcknowledgeOptions, InvalidSignalFile, SignalInbox } from '../ports/signal-transport.js';
import { signalMessageSchema } from '../schema/signal.js';
import { resolveParty } from './resolve-party.js';

export interface AckAllResult {
  acknowledged: AckResult[];
  /** Entries of the inbox that are not valid signals; they cannot be acknowledged and are left in place. */
  invalid: InvalidSignalFile[];
}

async function openInbox(root: string, team: string, backend: FederationBackend): Promise<SignalInbox> {
  const party = resolveParty(await backend.registry.read(), team, { role: 'team (--team)' });
  return backend.signals.inbox(party);
}

/**
 * Acknowledge one signal of `team`'s inbox (spec §4.3). `target` is the signal's id, or the handle (file
 * name) or location (path) the inbox showed for it. Every stored signal carrying the id is acknowledged
 * (a copy made by hand is still the same signal).
 */
export async function acknowledgeSignal(root: string, team: string, target: string, options: AcknowledgeOptions = {}, backend: FederationBackend = openBackend(root)): Promise<AckResult[]> {
  const inbox = await openInbox(root, team, backend);
  const listHint = `list them with: fed signal list --team ${inbox.party}`;
  // A signal file name always ends in .json, so it is never mistaken for an id.
  if (signalMessageSchema.shape.id.safeParse(target).success) {
    // The sent fact says where the send stored it: found at the same cost in any size of inbox.
    const sent = await backend.delivery.get(target, 'sent');
    const matches = await inbox.find(target, sent?.to === inbox.party ? sent : undefined);
    if (matches.length === 0) throw new RefusedError('UNKNOWN_SIGNAL', `no signal with id ${target} in the inbox of "${inbox.party}" (${inbox.location}); ${listHint}`);
    return acknowledged(await inbox.acknowledge(matches, options));
  }
  const found = await inbox.lookup(target);
  if (found && 'signal' in found) return acknowledged(await inbox.acknowledge([found.signal], options));
  if (found) throw new RefusedError('INVALID_SIGNAL', `${found.invalid.path} is not a valid signal (${found.invalid.reason}), so it cannot be acknowledged`);
  throw new RefusedError('UNKNOWN_SIGNAL', `no signal "${target}" in the inbox of "${inbox.party}" (${inbox.location}); pass a signal id or file name — ${listHint}`);
}

/**
 * `fed signal ack --all`: acknowledge every signal of the inbox that is not acknowledged yet. A signal
 * whose acknowledgment is broken is left to a person (it is in `invalid`), so it cannot stop the others.
 */
export async function acknowledgeAll(root: string, team: string, options: AcknowledgeOptions = {}, backend: FederationBackend = openBackend(root)): Promise<AckAllResult> {
  const inbox = await openInbox(root, team, backend);
  const { signals, invalid } = await inbox.pending();
  return { acknowledged: acknowledged(await inbox.acknowledge(signals, options)), invalid };
}

/** A person asked for these acknowledgments: one that cannot be recorded is an error, as it always was. */
function acknowledged(batch: AcknowledgeBatch): AckResult[] {
  const failure = batch.failed[0];
  if (failure) throw failure.error;
  return batch.acknowledged;
}

