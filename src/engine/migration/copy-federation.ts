import { isDeepStrictEqual } from 'node:util';
import { FedError, RefusedError } from '../../core/errors.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { KeptRun } from '../../ports/lifecycle-store.js';
import type { InvalidSignalFile, SignalEntry } from '../../ports/signal-transport.js';
import { everyParty } from '../../core/resolve-party.js';
import type { DeliveryFactName, DeliveryFacts } from '../../core/schema/delivery.js';
import type { Registry, RegistryEntry } from '../../core/schema/registry.js';

export interface CopyFederationResult {
  teams: number;
  /** Signals copied now (a re-run after an interruption copies only what is missing). */
  signals: number;
  /** Acknowledgments recorded now, each with its original time. */
  acknowledgments: number;
  /** Delivery facts recorded now (sent, read, answered, escalated, undeliverable) of the signals copied. */
  deliveryFacts: number;
  lifecycles: number;
  /** Earlier runs of teams' lifecycles (kept by `fed team retry`) copied now. */
  keptRuns: number;
  journalLines: number;
  /** Records of the federation journal copied now. */
  federationRecords: number;
  /** Entries of the source's inboxes that are not valid signals: reported, not copied (they stay in the source). */
  invalid: Array<InvalidSignalFile & { party: string }>;
}

/**
 * Copy a whole federation from one backend to another — files into JetStream, or back — without losing
 * a signal, an acknowledgment or a lifecycle state: the registry (into an empty target as it is, onto a
 * freshly initialised one as one more write, so its `lockVersion` never goes back), every
 * inbox's signals in inbox order with their ids (the sender's outbox record follows from the send), each
 * acknowledgment with its original time, the delivery facts of those signals (so reply links, read
 * marks, alerts already sent and the single use of each id carry over), every team's envelope and journal
 * with its kept earlier runs, and the federation journal. Stop the federation's
 * processes first: what they write during the copy may be missed.
 *
 * Everything that can refuse the copy — a target holding another federation, a workspace either side may
 * not use (`prepare`) — is checked before the first write. Safe to run again after an interruption: what
 * the target already holds is skipped, never duplicated, and a registry an earlier copy wrote with the
 * source's stale locations gets the planned ones. A target that holds a different federation is refused,
 * so nothing is ever merged into another one.
 */
export interface CopyFederationOptions {
  /**
   * Where each team's workspace really is in the source, when its registry says otherwise: a copied file
   * federation's teams are in the copy (`locatedHere`). The source is read there, and the target gets it.
   */
  locate?: (entry: RegistryEntry) => RegistryEntry;
  /**
   * Where each team's workspace is in the target (default: where it is in the source). Exporting into another
   * file federation moves directory teams under its root, e.g. with `teamWorkspacePath`.
   */
  relocate?: (entry: RegistryEntry) => RegistryEntry;
  /**
   * Check the teams as the target will register them and make what they need there (workspace folders,
   * markers): called once the target is known to accept the copy, right before its first write. Throwing
   * refuses the copy with nothing written to the target.
   */
  prepare?: (teams: readonly RegistryEntry[]) => void;
}

export async function copyFederation(
  source: FederationBackend,
  target: FederationBackend,
  options: CopyFederationOptions = {},
): Promise<CopyFederationResult> {
  const stored = await source.registry.read();
  const located = options.locate ? stored.teams.map(options.locate) : stored.teams;
  const registry = { ...stored, teams: options.relocate ? located.map(options.relocate) : located };
  const existing = await readIfThere(target);
  if (existing) refuseAnotherFederation(target, existing, registry);
  options.prepare?.(registry.teams);
  await writeRegistry(target, existing, registry, stored);
  const result: CopyFederationResult = {
    teams: registry.teams.length,
    signals: 0,
    acknowledgments: 0,
    deliveryFacts: 0,
    lifecycles: 0,
    keptRuns: 0,
    journalLines: 0,
    federationRecords: 0,
    invalid: [],
  };
  const sourceParties = everyParty(located);
  const parties = everyParty(registry.teams);
  const byId = new Map(parties.map((party) => [party.id, party]));

  for (const [index, party] of parties.entries()) {
    await target.signals.provision(party);
    const { signals, invalid } = await source.signals.inbox(sourceParties[index]!).list();
    result.invalid.push(...invalid.map((bad) => ({ ...bad, party: party.id })));
    const targetInbox = target.signals.inbox(party);
    const present = new Map((await targetInbox.list()).signals.map((entry) => [entry.message.id, entry]));
    for (const entry of signals) {
      const { acknowledged, acknowledged_at, ...message } = entry.message;
      let copied = present.get(message.id);
      if (!copied) {
        const from = byId.get(message.from) ?? { id: message.from, entry: undefined };
        const sent = await target.signals.send(message, { from, to: party }, { idempotent: true });
        copied = { file: sent.file, path: sent.inboxPath, message: sent.message };
        if (sent.delivered) result.signals++;
      }
      if (acknowledged && acknowledged_at && !copied.message.acknowledged) {
        result.acknowledgments += await acknowledgeAt(targetInbox, copied, acknowledged_at);
      }
      result.deliveryFacts += await copyDeliveryFacts(source, target, message.id);
    }
  }

  for (const [index, team] of registry.teams.entries()) {
    const from = located[index]!;
    const envelope = await source.lifecycles.read(from);
    if (!envelope) continue;
    const kept = await copyKeptRuns(source, target, from, team, result);
    const existing = await target.lifecycles.read(team);
    // Right after its earlier runs were copied, the target's envelope is the last of them, still to be replaced.
    const replaceable =
      existing === undefined || (kept !== undefined && isDeepStrictEqual(existing.envelope, kept.envelope));
    if (replaceable && !(existing && isDeepStrictEqual(existing.envelope, envelope.envelope))) {
      await target.lifecycles.exclusive(team, (section) =>
        target.lifecycles.write(team, envelope.envelope, existing?.version ?? null, section),
      );
      result.lifecycles++;
    } else if (!isDeepStrictEqual(existing!.envelope, envelope.envelope)) {
      throw notEmpty(target, team);
    }
    result.journalLines += await target.lifecycles.appendJournal(team, await source.lifecycles.journal(from));
  }

  const present = new Set((await target.journal.read()).map((record) => JSON.stringify(record)));
  for (const record of await source.journal.read()) {
    if (present.has(JSON.stringify(record))) continue;
    await target.journal.append(record);
    result.federationRecords++;
  }
  return result;
}

/** The target's registry; undefined when it has none yet. */
async function readIfThere(target: FederationBackend): Promise<Registry | undefined> {
  try {
    return await target.registry.read();
  } catch (error) {
    if (error instanceof FedError && error.code === 'NOT_A_FEDERATION') return undefined;
    throw error;
  }
}

/**
 * A target made by `fed init` (no teams yet) takes the registry; one that holds these teams is an earlier,
 * interrupted copy; anything else is another federation, refused.
 */
function refuseAnotherFederation(target: FederationBackend, existing: Registry, registry: Registry): void {
  if (existing.teams.length === 0 || isDeepStrictEqual(ids(existing.teams), ids(registry.teams))) return;
  throw new RefusedError(
    'MIGRATION_TARGET_NOT_EMPTY',
    `the target already holds another federation (${target.registry.location}: teams ${ids(existing.teams).join(', ')}; this one has ${ids(registry.teams).join(', ') || 'none'}); ` +
      'copy into an empty target, or remove that federation first',
  );
}

function ids(teams: readonly RegistryEntry[]): string[] {
  return teams.map((team) => team.domainId).sort();
}

/**
 * The registry into the target: created when it has none, committed onto an empty one (its `lockVersion`
 * goes on). Over an earlier copy's, only the locations it took from the source unchanged where this copy
 * places the team elsewhere (a copied federation's old folder) are corrected; the rest stays as copied.
 */
async function writeRegistry(
  target: FederationBackend,
  existing: Registry | undefined,
  registry: Registry,
  stored: Registry,
): Promise<void> {
  if (!existing) {
    if (await target.registry.create(registry)) return;
    existing = await target.registry.read();
    refuseAnotherFederation(target, existing, registry);
  }
  if (existing.teams.length === 0) {
    if (registry.teams.length > 0)
      await target.registry.commit(existing.lockVersion, { ...registry, lockVersion: existing.lockVersion });
    return;
  }
  const planned = new Map(registry.teams.map((team) => [team.domainId, team.location]));
  const storedAt = new Map(stored.teams.map((team) => [team.domainId, team.location]));
  let corrected = false;
  const teams = existing.teams.map((team) => {
    const location = planned.get(team.domainId);
    if (location === undefined || location === team.location || team.location !== storedAt.get(team.domainId))
      return team;
    corrected = true;
    return { ...team, location };
  });
  if (corrected) await target.registry.commit(existing.lockVersion, { ...existing, teams });
}

/** The facts of one signal that the target does not hold yet (each is recorded once: a re-run adds nothing). */
async function copyDeliveryFacts(source: FederationBackend, target: FederationBackend, id: string): Promise<number> {
  let recorded = 0;
  for (const [fact, value] of Object.entries(await source.delivery.all(id)) as [
    DeliveryFactName,
    NonNullable<DeliveryFacts[DeliveryFactName]>,
  ][]) {
    if (await target.delivery.record(id, fact, value)) recorded++;
  }
  return recorded;
}

/**
 * Copy the team's kept earlier runs that the target lacks, oldest first, each the way `fed team retry`
 * made it: its envelope written, its journal appended, then kept. Returns the last kept run, if any.
 */
async function copyKeptRuns(
  source: FederationBackend,
  target: FederationBackend,
  from: RegistryEntry,
  team: RegistryEntry,
  result: CopyFederationResult,
): Promise<KeptRun | undefined> {
  const runs = await source.lifecycles.keptRuns(from);
  const copied = await target.lifecycles.keptRuns(team);
  if (
    !isDeepStrictEqual(
      copied.map((run) => [run.run, run.envelope]),
      runs.slice(0, copied.length).map((run) => [run.run, run.envelope]),
    )
  )
    throw notEmpty(target, team);
  for (const run of runs.slice(copied.length)) {
    const journal = await source.lifecycles.journal(from, run.run);
    const keptAs = await target.lifecycles.exclusive(team, async (section) => {
      const current = await target.lifecycles.read(team);
      if (!current || !isDeepStrictEqual(current.envelope, run.envelope))
        await target.lifecycles.write(team, run.envelope, current?.version ?? null, section);
      result.journalLines += await target.lifecycles.appendJournal(team, journal);
      return target.lifecycles.keepRun(team, section);
    });
    if (keptAs.run !== run.run) throw notEmpty(target, team);
    result.keptRuns++;
  }
  return runs.at(-1);
}

function notEmpty(target: FederationBackend, team: RegistryEntry): RefusedError {
  return new RefusedError(
    'MIGRATION_TARGET_NOT_EMPTY',
    `the target already holds a different lifecycle state for team "${team.domainId}" (${target.lifecycles.envelopeLocation(team)}); copy into an empty target`,
  );
}

async function acknowledgeAt(
  inbox: ReturnType<FederationBackend['signals']['inbox']>,
  entry: SignalEntry,
  at: string,
): Promise<number> {
  const batch = await inbox.acknowledge([entry], { now: () => new Date(at) });
  const failed = batch.failed[0];
  if (failed) throw failed.error;
  return batch.acknowledged.filter((result) => !result.alreadyAcknowledged).length;
}
