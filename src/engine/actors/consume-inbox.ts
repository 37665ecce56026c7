import { setImmediate } from 'node:timers/promises';
import { FedError } from '../../core/errors.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { InvalidSignalFile, SignalEntry, SignalInbox, SignalReadResult } from '../../ports/signal-transport.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle, settleTeamLifecycle } from './team-lifecycle.js';
import type { ApplyOptions, ApplyResult, LifecycleStep, TeamLifecycle } from './lifecycle-types.js';
import { stateOf } from './state-of.js';
import type { Federation } from '../context.js';
import { idIntruders, repeatedIds } from '../delivery/id-intruders.js';

export interface ConsumeResult {
  team: string;
  steps: LifecycleStep[];
  acknowledged: number;
  quarantined: { file: string; reason: string; movedTo: string }[];
  /** Quarantined files that had become valid signals and were moved back into the inbox. */
  restored: string[];
  /** Signals held back while the team is paused. */
  deferred: number;
  /**
   * Invalid inbox files left where they are for now, as the last pass read them: empty or cut-off JSON
   * that changed within the settle time (it may still be being written), or a file that could not be read.
   */
  waiting: { file: string; path: string; reason: string }[];
  state: string;
  warnings: string[];
}

export interface ConsumerOptions extends ApplyOptions {
  /** Signals applied per envelope write (default 256): fewer writes per signal, bounded work per lock hold. */
  batchSize?: number;
  /** An invalid inbox file is quarantined only once it has not changed for this long (default 2 s; see SETTLE_MS). */
  settleMs?: number;
  /**
   * Told each batch's steps as soon as its state is saved; the consume's result then keeps none, so the
   * memory a consume holds stays bounded however many signals it applies.
   */
  onSteps?: (team: string, steps: LifecycleStep[], state: string) => void | Promise<void>;
  /**
   * Stops a consume between two batches (each batch is saved and acknowledged on its own, so stopping there
   * loses nothing): Ctrl-C during a long backlog ends within a batch, not at its end.
   */
  signal?: AbortSignal;
  /**
   * The caller consumes again on every arrival, one heard during a consume included (`fed actors run`
   * watching the inboxes): a pass that applied, held nothing back and owes nothing then ends the consume,
   * instead of reading the inbox once more only to find what the next arrival will bring anyway.
   */
  consumesOnArrival?: boolean;
}

/**
 * The inbox side of a team actor: reads the team's inbox through the signal transport (incrementally),
 * quarantines invalid entries, feeds the signals that wait for the lifecycle (in inbox order) to it in
 * batches, and acknowledges each signal right after the envelope write that saved its effect.
 *
 * The dedupe record (the envelope's `processed`) keeps an id only until the signal's ack is durable: the
 * acks are written durably, and the ids this consumer knows to be durably acknowledged leave the record
 * at its next write, so the envelope stays a batch or two long however many signals are applied. An
 * acknowledged signal is taken (fed acknowledges only what is applied, held or ignored), so a consumer of
 * an envelope with dedupe `until-ack` reads only the unacknowledged signals.
 */
export class TeamInboxConsumer {
  readonly team: RegistryEntry;
  private readonly fed: Federation;
  private readonly backend: FederationBackend;
  private readonly inbox: SignalInbox;
  private readonly options: ConsumerOptions;
  /** Whether the stored lifecycle may still owe effects: true at start and after a settle that failed. */
  private owesEffects = true;
  /** Special files (a FIFO or directory named like a signal) already reported: reported once, not on every poll. */
  private readonly reportedSpecial = new Set<string>();
  /** Ids of the envelope's dedupe record whose ack is known durable (or whose signal left the inbox): dropped at the next write. */
  private readonly acknowledged = new Set<string>();
  /** The lifecycle as this consumer last loaded or wrote it (loaded again only when its stored version changed). */
  private lifecycle: TeamLifecycle | undefined;

  constructor(fed: Federation, team: RegistryEntry, options: ConsumerOptions = {}) {
    this.fed = fed;
    this.team = team;
    this.backend = fed.backend;
    this.options = options;
    this.inbox = this.backend.signals.inbox({ id: team.domainId, entry: team }, { settleMs: options.settleMs });
  }

  /** Process everything pending now; loops until nothing more can be processed (a resume unblocks deferred signals). */
  async consume(): Promise<ConsumeResult> {
    const result: ConsumeResult = {
      team: this.team.domainId,
      steps: [],
      acknowledged: 0,
      quarantined: [],
      restored: [],
      deferred: 0,
      waiting: [],
      state: '',
      warnings: [],
    };
    result.restored = await this.inbox.reclaim(this.options);
    let verify = false;
    for (;;) {
      // Loaded before the inbox is read: an id of its dedupe record whose signal the read then finds
      // acknowledged (or gone) had its ack written before the read, so it can leave the record.
      const start = await this.load();
      result.state = stateOf(start.snapshot);
      const pass: Pass = {
        startProcessed: new Set(start.envelope.processed),
        readAgainst: start.version,
        seenUnacknowledged: new Set(),
        pendingSeen: 0,
        progressed: false,
        deferred: 0,
        sawInvalid: false,
        releasedHeld: false,
      };
      const batchSize = this.options.batchSize ?? 256;
      let quarantinedAny = false;
      result.waiting = [];
      const take = async (read: SignalReadResult, last: boolean) => {
        // Special entries (a FIFO, a directory) are never moved, so they cannot turn into a pending signal.
        pass.sawInvalid ||= read.invalid.some((file) => !file.special);
        for (const { file, path, reason, retryable, special } of read.invalid)
          if (retryable && !special) result.waiting.push({ file, path, reason });
        const quarantined = await this.quarantine(read.invalid, result.warnings);
        result.quarantined.push(...quarantined);
        quarantinedAny ||= quarantined.length > 0;
        for (let i = 0; i < read.signals.length; i += batchSize) {
          // The file adapter's work is synchronous: without a turn of the event loop between batches, a
          // consume that keeps finding new signals would hold off Ctrl-C (and every other event) until the
          // senders pause.
          if (this.options.signal) await setImmediate();
          if (this.stopped) return;
          await this.applyBatch(
            read.signals.slice(i, i + batchSize),
            last && i + batchSize >= read.signals.length,
            pass,
            result,
          );
        }
      };
      // After a quarantine, a name can be taken again at once (an invalid ack replaced by the real one)
      // with an unchanged listing: the next read then re-checks every file instead of trusting the listing.
      if (start.envelope.dedupe !== undefined) {
        // Streamed: only unacknowledged signals, a batch at a time, so a huge inbox is never held at once.
        for await (const read of this.inbox.pendingBatches({ batchSize, verify })) {
          if (this.stopped) break;
          await take(read, false);
        }
      } else {
        // An envelope of an earlier release dedupes by its whole history, and its agents could acknowledge
        // before the actor applied: every signal is read until it has adopted dedupe until-ack.
        await take(await this.inbox.list({ verify }), true);
      }
      // A pass cut short has not seen the whole inbox, so it must not compact the dedupe record.
      if (this.stopped) return result;
      verify = quarantinedAny;
      await this.compact(pass, result);
      // A signal whose broken ack was just quarantined is pending now: one more pass takes it.
      if (quarantinedAny) continue;
      if (pass.pendingSeen === 0) {
        // Nothing to apply (which would settle it too): what the stored lifecycle owes is settled now, so a
        // crash between a lifecycle write and its registry write is repaired even when no signal comes.
        if (this.owesEffects) {
          const warnings = await settleTeamLifecycle(this.fed, this.team, this.options);
          this.owesEffects = warnings.length > 0;
          result.warnings.push(...warnings);
        }
        return result;
      }
      // Nothing taken: held back while the team is paused — or gone from the inbox since it was read,
      // which is not waiting for anything (a copy moved back is taken by the next pass).
      if (!pass.progressed) {
        result.deferred = pass.deferred;
        return result;
      }
      if (this.options.consumesOnArrival && pass.deferred === 0 && !pass.releasedHeld && !this.owesEffects)
        return result;
    }
  }

  /**
   * One batch, in inbox order: acknowledge what the dedupe record (or held list) already has — a crash
   * came between its save and its ack —, apply the rest in one envelope write, and acknowledge what that
   * write processed right after it.
   */
  private async applyBatch(
    batch: readonly SignalEntry[],
    last: boolean,
    pass: Pass,
    result: ConsumeResult,
  ): Promise<void> {
    // The lifecycle as loaded at the pass's start or written by the batch before: not asked for again. One
    // changed meanwhile by another writer is found by the apply's own load under the section (which alone
    // decides what is applied), and the envelope's compare-and-swap refuses a write on an older version.
    const lifecycle = this.lifecycle!;
    const { envelope } = lifecycle;
    const done = new Set([...envelope.processed, ...(envelope.held ?? []).map((h) => h.id)]);
    batch = await this.withoutIntruders(batch, done, result);
    for (const s of batch)
      if (!s.message.acknowledged && pass.startProcessed.has(s.message.id)) pass.seenUnacknowledged.add(s.message.id);
    result.acknowledged += await this.acknowledge(
      batch.filter((s) => done.has(s.message.id) && !s.message.acknowledged),
      result.warnings,
    );
    const pending = batch.filter((s) => !done.has(s.message.id) && (!envelope.dedupe || !s.message.acknowledged));
    if (pending.length === 0) return;
    pass.pendingSeen += pending.length;
    const applied = await applyLifecycleInputs(
      this.fed,
      this.team,
      pending.map((s) => ({ source: 'signal' as const, signal: s.message, file: s.file })),
      {
        ...this.options,
        acknowledged: this.acknowledged,
        // The batches come from one listing made after the pass's load: a signal another process took
        // since is found under the section once the lifecycle has moved on from that version.
        inboxReadAgainst: pass.readAgainst,
        // The last batch of a pass that held nothing back has applied every signal not in the dedupe
        // record, acknowledged or not: an envelope of an earlier release can switch to dedupe until-ack.
        adoptAckRule: last && pass.deferred === 0,
        known: lifecycle,
        afterSave: async (ids) => {
          const processed = new Set(ids);
          result.acknowledged += await this.acknowledge(
            pending.filter((s) => processed.has(s.message.id) && !s.message.acknowledged),
            result.warnings,
          );
        },
      },
    );
    // A write of another process since the pass's read (this apply found the lifecycle moved on) leaves the
    // rest of the pass's batches to be looked up again under the section; this consumer's own writes do not.
    if (applied.inboxReadAgainst !== undefined) pass.readAgainst = applied.inboxReadAgainst;
    pass.deferred += applied.steps.filter((step) => step.outcome === 'deferred').length;
    pass.progressed ||= applied.processedSignalIds.length > 0;
    await this.took(applied, result);
  }

  /**
   * After a pass: ids of the dedupe record it started from whose signal it did not see unacknowledged are
   * acknowledged (or their signal is gone), so they leave the record — after a restart, a `fed signal
   * ack`, or in an envelope of an earlier release — in a write that changes nothing else. The same write
   * adopts dedupe until-ack for an envelope of an earlier release, and applies held signals once the team
   * is no longer paused (e.g. the mission of a retried run).
   */
  private async compact(pass: Pass, result: ConsumeResult): Promise<void> {
    // Loaded at the pass's start, or written since. One never stored is the initial envelope: nothing in
    // its record, no held list, dedupe until-ack — nothing below to do.
    const lifecycle = this.lifecycle!;
    // A signal whose ack is broken is not pending, yet not acknowledged either: while the pass saw anything
    // invalid, no id leaves the record (once the broken ack is quarantined, its signal is a duplicate).
    const noted = pass.sawInvalid
      ? 0
      : this.noteAcknowledged(pass.startProcessed, pass.seenUnacknowledged, lifecycle.envelope.processed);
    const adopt = !lifecycle.envelope.dedupe && pass.pendingSeen === 0;
    const heldReady = (lifecycle.envelope.held?.length ?? 0) > 0 && stateOf(lifecycle.snapshot) !== 'paused';
    if (noted === 0 && !adopt && !heldReady) return;
    const applied = await applyLifecycleInputs(this.fed, this.team, [], {
      ...this.options,
      acknowledged: this.acknowledged,
      adoptAckRule: pass.deferred === 0,
      compact: true,
      known: lifecycle,
    });
    // What it processed are held signals it released (an apply of no input processes nothing else).
    pass.pendingSeen += applied.processedSignalIds.length;
    pass.progressed ||= applied.processedSignalIds.length > 0;
    pass.releasedHeld ||= applied.processedSignalIds.length > 0;
    await this.took(applied, result);
  }

  /**
   * A signal whose id another one of the batch carries, or that the dedupe record holds already, would be
   * skipped as a duplicate (or make the real one skipped): when it is not the signal fed delivered under
   * that id, it is quarantined with the reason instead. Only repeated ids are looked up.
   */
  private async withoutIntruders(
    batch: readonly SignalEntry[],
    done: ReadonlySet<string>,
    result: ConsumeResult,
  ): Promise<readonly SignalEntry[]> {
    const unacknowledged = batch.filter((s) => !s.message.acknowledged);
    const suspects = new Set([...repeatedIds(unacknowledged), ...unacknowledged.filter((s) => done.has(s.message.id))]);
    if (suspects.size === 0) return batch;
    // Judged beside every file with their ids, the acknowledged too (the one applied under an id another
    // tool reused); only an unacknowledged one is taken out.
    const ids = new Set([...suspects].map((s) => s.message.id));
    const intruders = (
      await idIntruders(
        this.backend.delivery,
        this.team.domainId,
        batch.filter((s) => ids.has(s.message.id)),
      )
    ).filter((intruder) => suspects.has(batch.find((s) => s.file === intruder.file)!));
    if (intruders.length === 0) return batch;
    result.quarantined.push(...(await this.quarantine(intruders, result.warnings)));
    const out = new Set(intruders.map((i) => i.file));
    return batch.filter((s) => !out.has(s.file));
  }

  /** Keep what an apply wrote and report its steps (streamed to onSteps when given, else collected). */
  private async took(applied: ApplyResult, result: ConsumeResult): Promise<void> {
    this.lifecycle = applied.lifecycle;
    // Ids the write dropped from the dedupe record need not be remembered: the set stays a batch or two.
    const kept = new Set(applied.lifecycle.envelope.processed);
    for (const id of this.acknowledged) if (!kept.has(id)) this.acknowledged.delete(id);
    const steps = applied.steps.filter((step) => step.outcome !== 'deferred');
    if (this.options.onSteps) await this.options.onSteps(this.team.domainId, steps, applied.state);
    else result.steps.push(...steps);
    result.warnings.push(...applied.warnings);
    this.owesEffects = applied.warnings.length > 0;
    result.state = applied.state;
  }

  /** Told when a signal may have arrived in the inbox (see SignalInbox.onArrival); returns the stop. */
  onArrival(onArrival: () => void, onError: (error: Error) => void): () => void {
    return this.inbox.onArrival(onArrival, onError);
  }

  private get stopped(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  /** The lifecycle this consumer holds, read again only when another process wrote it. */
  private async load(): Promise<TeamLifecycle> {
    this.lifecycle = await loadTeamLifecycle(this.team, this.backend.lifecycles, this.lifecycle);
    return this.lifecycle;
  }

  private noteAcknowledged(
    processed: ReadonlySet<string>,
    unacknowledged: ReadonlySet<string>,
    record: readonly string[],
  ): number {
    const current = new Set(record);
    let noted = 0;
    for (const id of processed) {
      if (unacknowledged.has(id) || !current.has(id) || this.acknowledged.has(id)) continue;
      this.acknowledged.add(id);
      noted++;
    }
    return noted;
  }

  /**
   * Write the acks. One that cannot be written (its ack name is taken by something that is not an ack) is
   * a warning: the signal's effect is saved (its id stays in the dedupe record), so it is only redelivered
   * and skipped as a duplicate later.
   */
  private async acknowledge(signals: readonly SignalEntry[], warnings: string[]): Promise<number> {
    // Durable unless told otherwise (the transport's default): an id leaves the dedupe record once its ack
    // is, so the ack must survive what the record does.
    const batch = await this.inbox.acknowledge(signals, { durable: this.options.durable, now: this.options.now });
    for (const { signal, error } of batch.failed)
      warnings.push(`could not acknowledge ${signal.path}: ${error.message}`);
    for (const { signal } of batch.acknowledged) this.acknowledged.add(signal.message.id);
    return batch.acknowledged.length;
  }

  /**
   * Invalid signal and ack files leave the inbox for the quarantine folder, with a reason file (never
   * deleted). A file that could not be read (an I/O error) or may still be being written is not known to
   * be bad: it stays and is read again. Something that is not a file at all (a directory or FIFO named
   * like a signal) cannot be moved by a hard link: it is reported once and left alone.
   */
  private async quarantine(
    invalid: readonly InvalidSignalFile[],
    warnings: string[],
  ): Promise<ConsumeResult['quarantined']> {
    const moved: ConsumeResult['quarantined'] = [];
    for (const file of invalid) {
      if (!file.special || this.reportedSpecial.has(file.file)) continue;
      this.reportedSpecial.add(file.file);
      warnings.push(`skipped ${file.path}: ${file.reason}; remove it — fed never opens or moves it`);
    }
    for (const file of invalid.filter((f) => !f.retryable && !f.special)) {
      try {
        moved.push({
          file: file.file,
          reason: file.reason,
          movedTo: (await this.inbox.quarantine(file, this.options)).path,
        });
      } catch (error) {
        // Another consumer moved it first: nothing is lost, and there is nothing left to do here.
        if ((error as FedError).code === 'SIGNAL_FILE_MISSING') continue;
        // The disk is full or read-only: the file stays where it is and is tried again next time.
        if (!(error as NodeJS.ErrnoException).code) throw error;
        warnings.push(
          `could not quarantine ${file.path} (${file.reason}): ${(error as Error).message}; it stays in the inbox and is tried again`,
        );
      }
    }
    return moved;
  }
}

/** What one pass over the inbox has seen so far. */
interface Pass {
  /** The dedupe record the pass started from (loaded before the inbox was read). */
  startProcessed: ReadonlySet<string>;
  /** The stored version the pass's read of the inbox holds against: that lifecycle's, then this consumer's writes'. */
  readAgainst: TeamLifecycle['version'];
  /** Ids of `startProcessed` seen unacknowledged: their ack is not durable yet. */
  seenUnacknowledged: Set<string>;
  pendingSeen: number;
  progressed: boolean;
  /** Signals held back (the team is paused). */
  deferred: number;
  /** The read reported an invalid entry that may be quarantined (it may be the broken ack of a signal in the dedupe record). */
  sawInvalid: boolean;
  /** The compaction applied held signals: the next pass acknowledges them. */
  releasedHeld: boolean;
}
