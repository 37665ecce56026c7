import { openBackend } from '../backend/open-backend.js';
import { FedError } from '../errors.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { InvalidSignalFile, SignalEntry, SignalInbox } from '../ports/signal-transport.js';
import type { RegistryEntry } from '../schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle, settleTeamLifecycle, type ApplyOptions, type LifecycleStep } from './team-lifecycle.js';

export interface ConsumeResult {
  team: string;
  steps: LifecycleStep[];
  acknowledged: number;
  quarantined: { file: string; reason: string; movedTo: string }[];
  /** Quarantined files that had become valid signals and were moved back into the inbox. */
  restored: string[];
  /** Signals held back while the team is paused. */
  deferred: number;
  state: string;
  warnings: string[];
}

export interface ConsumerOptions extends ApplyOptions {
  /** Signals applied per envelope write (default 256): fewer writes per signal, bounded work per lock hold. */
  batchSize?: number;
  /** An invalid inbox file is quarantined only once it has not changed for this long (default 2 s; see SETTLE_MS). */
  settleMs?: number;
}

/**
 * The inbox side of a team actor: reads the team's inbox through the signal transport (incrementally),
 * quarantines invalid entries, feeds unprocessed signals (in inbox order) to the lifecycle in batches,
 * and acknowledges each signal once its effect is saved. Acks need not be durable of their own: the
 * dedupe record in the envelope is, so an ack lost in a crash is simply written again when the signal
 * is redelivered.
 */
export class TeamInboxConsumer {
  readonly team: RegistryEntry;
  private readonly root: string;
  private readonly backend: FederationBackend;
  private readonly inbox: SignalInbox;
  private readonly options: ConsumerOptions;
  /** Whether the stored lifecycle may still owe effects: true at start and after a settle that failed. */
  private owesEffects = true;
  /** Special files (a FIFO or directory named like a signal) already reported: reported once, not on every poll. */
  private readonly reportedSpecial = new Set<string>();

  constructor(root: string, team: RegistryEntry, options: ConsumerOptions = {}) {
    this.root = root;
    this.team = team;
    this.backend = options.backend ?? openBackend(root);
    this.options = { ...options, backend: this.backend };
    this.inbox = this.backend.signals.inbox({ id: team.domainId, entry: team }, { settleMs: options.settleMs });
  }

  /** Process everything pending now; loops until nothing more can be processed (a resume unblocks deferred signals). */
  async consume(): Promise<ConsumeResult> {
    const result: ConsumeResult = { team: this.team.domainId, steps: [], acknowledged: 0, quarantined: [], restored: [], deferred: 0, state: '', warnings: [] };
    result.restored = await this.inbox.reclaim(this.options);
    let verify = false;
    for (;;) {
      // After a quarantine, a name can be taken again at once (an invalid ack replaced by the real one)
      // with an unchanged listing: the next read then stats every file instead of trusting the listing.
      const { signals, invalid } = await this.inbox.list({ verify });
      const quarantined = await this.quarantine(invalid, result.warnings);
      result.quarantined.push(...quarantined);
      verify = quarantined.length > 0;
      const lifecycle = await loadTeamLifecycle(this.team, this.backend.lifecycles);
      result.state = String(lifecycle.snapshot.value);
      const processed = new Set(lifecycle.envelope.processed);
      const pending = signals.filter((s) => !processed.has(s.message.id));
      // Already processed but not acknowledged: a crash came between the save and the ack.
      const unacked = signals.filter((s) => processed.has(s.message.id) && !s.message.acknowledged);
      result.acknowledged += await this.acknowledge(unacked, result.warnings);
      if (pending.length === 0) {
        // Nothing to apply (which would settle it too): what the stored lifecycle owes is settled now, so a
        // crash between a lifecycle write and its registry write is repaired even when no signal comes.
        if (this.owesEffects) {
          const warnings = await settleTeamLifecycle(this.root, this.team, this.options);
          this.owesEffects = warnings.length > 0;
          result.warnings.push(...warnings);
        }
        return result;
      }

      let progressed = false;
      const batchSize = this.options.batchSize ?? 256;
      for (let i = 0; i < pending.length; i += batchSize) {
        const batch = pending.slice(i, i + batchSize);
        const applied = await applyLifecycleInputs(this.root, this.team, batch.map((s) => ({ source: 'signal' as const, signal: s.message })), this.options);
        const done = new Set(applied.processedSignalIds);
        result.acknowledged += await this.acknowledge(batch.filter((s) => done.has(s.message.id) && !s.message.acknowledged), result.warnings);
        result.steps.push(...applied.steps.filter((step) => step.outcome !== 'deferred'));
        result.warnings.push(...applied.warnings);
        this.owesEffects = applied.warnings.length > 0;
        result.state = applied.state;
        progressed ||= done.size > 0;
      }
      if (!progressed) {
        result.deferred = pending.length;
        return result;
      }
    }
  }

  /**
   * Write the acks. One that cannot be written (its ack name is taken by something that is not an ack) is
   * a warning: the signal's effect is saved, so it is only redelivered and skipped as a duplicate later.
   */
  private async acknowledge(signals: readonly SignalEntry[], warnings: string[]): Promise<number> {
    if (signals.length === 0) return 0;
    const batch = await this.inbox.acknowledge(signals, { durable: false, now: this.options.now });
    for (const { signal, error } of batch.failed) warnings.push(`could not acknowledge ${signal.path}: ${error.message}`);
    return batch.acknowledged.length;
  }

  /**
   * Invalid signal and ack files leave the inbox for the quarantine folder, with a reason file (never
   * deleted). A file that could not be read (an I/O error) or may still be being written is not known to
   * be bad: it stays and is read again. Something that is not a file at all (a directory or FIFO named
   * like a signal) cannot be moved by a hard link: it is reported once and left alone.
   */
  private async quarantine(invalid: readonly InvalidSignalFile[], warnings: string[]): Promise<ConsumeResult['quarantined']> {
    const moved: ConsumeResult['quarantined'] = [];
    for (const file of invalid) {
      if (!file.special || this.reportedSpecial.has(file.file)) continue;
      this.reportedSpecial.add(file.file);
      warnings.push(`skipped ${file.path}: ${file.reason}; remove it — fed never opens or moves it`);
    }
    for (const file of invalid.filter((f) => !f.retryable && !f.special)) {
      try {
        moved.push({ file: file.file, reason: file.reason, movedTo: (await this.inbox.quarantine(file, this.options)).path });
      } catch (error) {
        // Another consumer moved it first: nothing is lost, and there is nothing left to do here.
        if ((error as FedError).code === 'SIGNAL_FILE_MISSING') continue;
        // The disk is full or read-only: the file stays where it is and is tried again next time.
        if (!(error as NodeJS.ErrnoException).code) throw error;
        warnings.push(`could not quarantine ${file.path} (${file.reason}): ${(error as Error).message}; it stays in the inbox and is tried again`);
      }
    }
    return moved;
  }
}
