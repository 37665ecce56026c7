import { lifecycleFor } from '../archetypes/catalog.js';
import { applyLifecycleInputs, leftInboxWarning, settleTeamLifecycle } from '../actors/team-lifecycle.js';
import { RefusedError } from '../../core/errors.js';
import type {
  AckResult,
  AcknowledgeBatch,
  AcknowledgeOptions,
  InvalidSignalFile,
  SignalEntry,
  SignalInbox,
} from '../../ports/signal-transport.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { EnvelopeVersion } from '../../ports/lifecycle-store.js';
import { signalMessageSchema } from '../../core/schema/signal.js';
import { assertOwnParty, resolveParty, type CallerOption } from '../../core/resolve-party.js';
import type { Federation } from '../context.js';

export interface AckAllResult {
  acknowledged: AckResult[];
  /** Entries of the inbox that are not valid signals; they cannot be acknowledged and are left in place. */
  invalid: InvalidSignalFile[];
  /**
   * What the applies could not do, for a person to know: a signal another process removed from the inbox
   * while this command waited for the team's lifecycle (neither applied nor acknowledged), an effect the
   * lifecycle owes and retries at its next write.
   */
  warnings: string[];
}

export interface AcknowledgeSignalOptions extends AcknowledgeOptions, CallerOption {
  /**
   * Told what the apply reported besides, for a person to know (as AckAllResult.warnings): an effect the
   * lifecycle owes and retries at its next write, a copy of the signal that left the inbox meanwhile.
   */
  onWarning?: (warning: string) => void;
}

/** Signals applied per envelope write by `ack --all`, as the team actor does. */
const ACK_BATCH = 256;

/**
 * The team's inbox, once what its lifecycle still owes is settled: an acknowledger killed after its
 * envelope write and its acks, before their journal lines and reports to meta, left them owed, and a
 * re-run may find nothing left to apply (which would settle them too). Settled here, once per command.
 */
async function openInbox(
  fed: Federation,
  team: string,
  options: AcknowledgeOptions & CallerOption,
): Promise<OpenInbox> {
  const { backend } = fed;
  const registry = await backend.registry.read();
  const party = resolveParty(registry, team, { role: 'team (--team)' });
  assertOwnParty(registry, options.caller, party.id, 'team (--team)');
  const inbox = backend.signals.inbox(party);
  if (!party.entry || !lifecycleFor(party.entry.archetypeId)) return { inbox, entry: party.entry };
  await settleTeamLifecycle(fed, party.entry, { durable: options.durable });
  // Before the inbox is read: the apply under the section looks a signal up again only if a write came since.
  return { inbox, entry: party.entry, readAgainst: await backend.lifecycles.version(party.entry) };
}

interface OpenInbox {
  inbox: SignalInbox;
  entry: RegistryEntry | undefined;
  /** The lifecycle's stored version before the inbox was read (ApplyOptions.inboxReadAgainst); none without a lifecycle. */
  readAgainst?: EnvelopeVersion;
}

/**
 * Acknowledge one signal of `team`'s inbox (docs/design/spec.md §4.3). `target` is the signal's id, or the handle (file
 * name) or location (path) the inbox showed for it. Every stored signal carrying the id is acknowledged
 * (a copy made by hand is still the same signal).
 *
 * An acknowledgment means the signal is taken: for a team with a lifecycle, the team actor never applies
 * an acknowledged signal, so it is applied first — the same apply path as the actor's, under the team's
 * lifecycle section — or, while the team is paused, kept in the lifecycle's held list until it is not;
 * only then is the ack written. Acknowledging again keeps the first time and applies nothing.
 */
export async function acknowledgeSignal(
  fed: Federation,
  team: string,
  target: string,
  options: AcknowledgeSignalOptions = {},
): Promise<AckResult[]> {
  const { backend } = fed;
  const opened = await openInbox(fed, team, options);
  const { inbox } = opened;
  const listHint = `list them with: fed signal list --team ${inbox.party}`;
  const ack = async (signals: readonly SignalEntry[]) => {
    const { batch, warnings } = await applyThenAcknowledge(fed, opened, signals, options);
    // Every copy left the inbox while this command waited for the lifecycle: none is taken. The refusal
    // says so; the apply's warning that each copy left would only say it again.
    const noneTaken = batch.acknowledged.length === 0 && batch.failed.length === 0 && signals.length > 0;
    const refused = new Set(
      noneTaken && opened.entry ? signals.map((s) => leftInboxWarning(opened.entry!.domainId, s.message.id)) : [],
    );
    for (const warning of warnings) if (!refused.has(warning)) options.onWarning?.(warning);
    if (noneTaken)
      throw new RefusedError(
        'UNKNOWN_SIGNAL',
        `signal ${signals[0]!.message.id}, or a copy of it, left the inbox of "${inbox.party}" while this command waited for the ` +
          "team's lifecycle (another process removed, moved or archived it, or it could not be read): nothing was applied or " +
          `acknowledged — run the command again, or ${listHint}`,
      );
    return batch;
  };
  // A signal file name always ends in .json, so it is never mistaken for an id.
  if (signalMessageSchema.shape.id.safeParse(target).success) {
    // The sent fact says where the send stored it: found at the same cost in any size of inbox.
    const sent = await backend.delivery.get(target, 'sent');
    const matches = await inbox.find(target, sent?.to === inbox.party ? sent : undefined);
    if (matches.length === 0)
      throw new RefusedError(
        'UNKNOWN_SIGNAL',
        `no signal with id ${target} in the inbox of "${inbox.party}" (${inbox.location}); ${listHint}`,
      );
    return acknowledged(await ack(matches));
  }
  const found = await inbox.lookup(target);
  if (found && 'signal' in found) return acknowledged(await ack([found.signal]));
  if (found)
    throw new RefusedError(
      'INVALID_SIGNAL',
      `${found.invalid.path} is not a valid signal (${found.invalid.reason}), so it cannot be acknowledged`,
    );
  throw new RefusedError(
    'UNKNOWN_SIGNAL',
    `no signal "${target}" in the inbox of "${inbox.party}" (${inbox.location}); pass a signal id or file name — ${listHint}`,
  );
}

/**
 * `fed signal ack --all`: acknowledge every signal of the inbox that is not acknowledged yet, in inbox
 * order, each applied first (see acknowledgeSignal). A signal whose acknowledgment is broken is left to a
 * person (it is in `invalid`), so it cannot stop the others.
 */
export async function acknowledgeAll(
  fed: Federation,
  team: string,
  options: AcknowledgeOptions & CallerOption = {},
): Promise<AckAllResult> {
  const opened = await openInbox(fed, team, options);
  const { signals, invalid } = await opened.inbox.pending();
  const results: AckResult[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < signals.length; i += ACK_BATCH) {
    const applied = await applyThenAcknowledge(fed, opened, signals.slice(i, i + ACK_BATCH), options);
    results.push(...acknowledged(applied.batch));
    warnings.push(...applied.warnings);
    // This command's own write leaves its one read of the inbox good for the next batch; another's does not.
    if (applied.readAgainst !== undefined) opened.readAgainst = applied.readAgainst;
  }
  return { acknowledged: results, invalid, warnings };
}

/**
 * Apply the unacknowledged signals to the team's lifecycle (when it has one), and acknowledge them right
 * after the envelope write, still inside the lifecycle section — so no team actor can see them
 * acknowledged before their effect is saved. Without a lifecycle an ack is only an ack.
 */
async function applyThenAcknowledge(
  fed: Federation,
  { inbox, entry: team, readAgainst }: OpenInbox,
  signals: readonly SignalEntry[],
  options: AcknowledgeOptions,
): Promise<{ batch: AcknowledgeBatch; warnings: string[]; readAgainst?: EnvelopeVersion }> {
  const unacknowledged = signals.filter((s) => !s.message.acknowledged);
  if (!team || unacknowledged.length === 0 || !lifecycleFor(team.archetypeId))
    return { batch: await inbox.acknowledge(signals, options), warnings: [], readAgainst };
  let batch: AcknowledgeBatch = { acknowledged: [], failed: [] };
  const applied = await applyLifecycleInputs(
    fed,
    team,
    unacknowledged.map((s) => ({ source: 'signal' as const, signal: s.message, file: s.file })),
    {
      durable: options.durable,
      now: options.now,
      keepHeld: true,
      // What this command read as unacknowledged may have been taken by a team actor since.
      inboxReadAgainst: readAgainst,
      // Only what the apply took: a signal another process removed or archived while this command waited for
      // the section is neither applied nor acknowledged (an ack of it would take it from every consumer).
      afterSave: async (ids) => {
        const taken = new Set(ids);
        batch = await inbox.acknowledge(
          signals.filter((s) => s.message.acknowledged || taken.has(s.message.id)),
          options,
        );
      },
    },
  );
  return { batch, warnings: applied.warnings, readAgainst: applied.inboxReadAgainst };
}

/** A person asked for these acknowledgments: one that cannot be recorded is an error, as it always was. */
function acknowledged(batch: AcknowledgeBatch): AckResult[] {
  const failure = batch.failed[0];
  if (failure) throw failure.error;
  return batch.acknowledged;
}
