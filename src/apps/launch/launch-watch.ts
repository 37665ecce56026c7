import type { TeamInboxConsumer } from '../../engine/actors/consume-inbox.js';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import type { TeamLifecycle } from '../../engine/actors/lifecycle-types.js';
import { notifySignals, notifyTransitions } from '../../engine/hooks/notify-hooks.js';
import type { InspectionRelay } from '../../infra/inspect/agent-inspection.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { LaunchOptions } from './launch-options.js';
import type { RunTrace } from './run-trace.js';

/** What of the launch's options the watch tells. */
type WatchOptions = Pick<LaunchOptions, 'hooks' | 'onProgress' | 'inspectRecord'>;

/**
 * What a launch sees of its team, look after look: the inbox consumed (when the launch consumes it), the
 * agent's inspection records forwarded, every new journal line told (progress, hooks) — and whether the
 * agent itself moved the lifecycle while it ran.
 */
export class LaunchWatch {
  /** Whether the agent itself moved the lifecycle (`fed event`) during this run. */
  progressed = false;
  /** Whether the agent itself failed the lifecycle (`fed event FAIL`) during this run. */
  agentFailed = false;
  /** Set while the agent runs: a `fed event` line seen then is the agent's progress. */
  running = false;
  /** Where the agent's own `fed event`s leave their inspection records, when the launch is inspected. */
  relay: InspectionRelay | undefined;
  /** The run's span, once the agent is about to start: the lifecycle's transitions become its events. */
  trace: RunTrace | undefined;

  private constructor(
    private readonly team: RegistryEntry,
    private readonly backend: FederationBackend,
    private readonly consumer: TeamInboxConsumer | undefined,
    private readonly options: WatchOptions,
    private readonly warnings: string[],
    private lastSeq: number,
  ) {}

  /** Starts looking from the journal line the lifecycle is at now. */
  static async open(
    team: RegistryEntry,
    backend: FederationBackend,
    consumer: TeamInboxConsumer | undefined,
    options: WatchOptions,
    warnings: string[],
  ): Promise<LaunchWatch> {
    const lastSeq = (await loadTeamLifecycle(team, backend.lifecycles)).envelope.seq;
    return new LaunchWatch(team, backend, consumer, options, warnings, lastSeq);
  }

  /** Everything that happened since the last look: printed, and passed to the hooks; returns the lifecycle as it is now. */
  async catchUp(): Promise<TeamLifecycle> {
    const { team, backend, options, warnings } = this;
    if (this.consumer) {
      const result = await this.consumer.consume();
      warnings.push(...result.warnings, ...(await notifySignals(options.hooks, result.steps)));
    }
    // The agent's own `fed event`s happen in its process: the journal is where the launcher sees them.
    for (const record of this.relay?.read() ?? []) options.inspectRecord?.(record);
    const lines = (await backend.lifecycles.journalTail(team, 200)).filter((l) => l.seq > this.lastSeq);
    this.lastSeq = lines.at(-1)?.seq ?? this.lastSeq;
    if (this.running && lines.some((l) => l.source === 'event')) this.progressed = true;
    // fed fails a team itself only after the agent has exited (launch-outcome.ts), so a FAIL seen while it
    // runs came from its `fed event` — its own, or its refused completion's (told apart by the reason).
    if (this.running && lines.some((l) => l.source === 'event' && l.event === 'FAIL')) this.agentFailed = true;
    lines.forEach((line) => options.onProgress?.(line));
    this.trace?.transitions(lines);
    warnings.push(...(await notifyTransitions(options.hooks, team.domainId, lines)));
    return loadTeamLifecycle(team, backend.lifecycles);
  }
}
