import type { InvalidSignalFile } from '../signals/read-signals.js';
import { SignalBoxReader } from '../signals/read-signals.js';
import { writeAck } from '../signals/ack-signal.js';
import { quarantineSignalFile } from '../signals/quarantine.js';
import { isSignalFileName } from '../signals/signal-file-name.js';
import { fsyncDirectory } from '../fs/atomic-write.js';
import type { FedError } from '../errors.js';
import { workspacePaths } from '../layout.js';
import type { RegistryEntry } from '../schema/registry.js';
import { applyLifecycleInputs, loadTeamLifecycle, type ApplyOptions, type LifecycleStep } from './team-lifecycle.js';

export interface ConsumeResult {
  team: string;
  steps: LifecycleStep[];
  acknowledged: number;
  quarantined: { file: string; reason: string; movedTo: string }[];
  /** Signals held back while the team is paused. */
  deferred: number;
  state: string;
  warnings: string[];
}

export interface ConsumerOptions extends ApplyOptions {
  /** Signals applied per envelope write (default 256): fewer writes per signal, bounded work per lock hold. */
  batchSize?: number;
}

/**
 * The inbox side of a team actor: reads the team's inbox incrementally, quarantines invalid files,
 * feeds unprocessed signals (in timestamp order) to the lifecycle in batches, and acknowledges each
 * signal once its effect is saved. Acks need no fsync of their own: the dedupe record in the envelope is
 * durable, so an ack lost in a crash is simply written again when the signal is redelivered.
 */
export class TeamInboxConsumer {
  readonly team: RegistryEntry;
  private readonly root: string;
  private readonly reader: SignalBoxReader;
  private readonly options: ConsumerOptions;

  constructor(root: string, team: RegistryEntry, options: ConsumerOptions = {}) {
    this.root = root;
    this.team = team;
    this.options = options;
    this.reader = new SignalBoxReader(workspacePaths(team.location).inbox, { owner: team.domainId, box: 'inbox' });
  }

  /** Process everything pending now; loops until nothing more can be processed (a resume unblocks deferred signals). */
  async consume(): Promise<ConsumeResult> {
    const result: ConsumeResult = { team: this.team.domainId, steps: [], acknowledged: 0, quarantined: [], deferred: 0, state: '', warnings: [] };
    for (;;) {
      const { signals, invalid } = this.reader.read();
      result.quarantined.push(...this.quarantine(invalid));
      const lifecycle = loadTeamLifecycle(this.team);
      result.state = String(lifecycle.snapshot.value);
      const processed = new Set(lifecycle.envelope.processed);
      const pending = signals.filter((s) => !processed.has(s.message.id));
      // Already processed but not acknowledged: a crash came between the save and the ack.
      const unacked = signals.filter((s) => processed.has(s.message.id) && !s.message.acknowledged);
      result.acknowledged += this.acknowledge(unacked);
      if (pending.length === 0) return result;

      let progressed = false;
      const batchSize = this.options.batchSize ?? 256;
      for (let i = 0; i < pending.length; i += batchSize) {
        const batch = pending.slice(i, i + batchSize);
        const applied = await applyLifecycleInputs(this.root, this.team, batch.map((s) => ({ source: 'signal' as const, signal: s.message })), this.options);
        const done = new Set(applied.processedSignalIds);
        result.acknowledged += this.acknowledge(batch.filter((s) => done.has(s.message.id) && !s.message.acknowledged));
        result.steps.push(...applied.steps.filter((step) => step.outcome !== 'deferred'));
        result.warnings.push(...applied.warnings);
        result.state = applied.state;
        progressed ||= done.size > 0;
      }
      if (!progressed) {
        result.deferred = pending.length;
        return result;
      }
    }
  }

  private acknowledge(signals: Parameters<typeof writeAck>[0][]): number {
    for (const signal of signals) writeAck(signal, { durable: false, now: this.options.now });
    if (signals.length > 0 && (this.options.durable ?? true)) fsyncDirectory(this.reader.dir);
    return signals.length;
  }

  /** Invalid signal files leave the inbox for the quarantine folder, with a reason file (never deleted). */
  private quarantine(invalid: readonly InvalidSignalFile[]): ConsumeResult['quarantined'] {
    const moved: ConsumeResult['quarantined'] = [];
    // A file that could not be read (an I/O error) is not known to be bad: it stays and is read again.
    for (const file of invalid.filter((f) => isSignalFileName(f.file) && !f.retryable)) {
      try {
        moved.push({ file: file.file, reason: file.reason, movedTo: quarantineSignalFile(file, this.options).path });
      } catch (error) {
        // Another consumer moved it first: nothing is lost, and there is nothing left to do here.
        if ((error as FedError).code !== 'SIGNAL_FILE_MISSING') throw error;
      }
    }
    return moved;
  }
}
