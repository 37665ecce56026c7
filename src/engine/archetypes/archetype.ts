import type { AnyStateMachine, SnapshotFrom } from 'xstate';
import type { z } from 'zod';
import { documentedEvents } from '../../../machines/event-docs.js';
import type { MachineEntry } from '../../../machines/catalog.js';
import type { CompletionRefusal } from '../../core/schema/completion-refusal.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { LaunchContext } from '../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { SignalMessage } from '../../core/schema/signal.js';

/**
 * A team archetype (docs/design/spec.md §2.4), declared in one place: its folder under `src/engine/archetypes/` holds this
 * descriptor and what only it needs; `catalog.ts` lists it. Nothing outside the archetype folders asks
 * which archetype a team has — it asks the descriptor (a test keeps it so).
 *
 * Generic over its lifecycle machine, so each archetype reads its own snapshots typed (context and
 * states); code that holds any archetype (`Archetype`, the default) passes it any lifecycle's snapshot.
 */
export interface Archetype<TMachine extends AnyStateMachine = AnyStateMachine> {
  id: string;
  /** One line: what a team of this archetype does. */
  summary: string;
  /** Its lifecycle machine (pure, in `machines/`) with the event schema the actor system validates with. */
  lifecycle: MachineEntry<TMachine>;
  /** The schema of its persisted lifecycle context (refused before restore when it does not fit). */
  contextSchema: z.ZodType;
  /**
   * The quick check of contextSchema, in front of it where many lifecycles are restored (`fed monitor`):
   * it accepts only what the schema accepts, and leaves the rest to the schema (a test compares them).
   */
  isWellFormedContext(value: unknown): boolean;
  /** The states it does work in: the ones it can be paused in and resumed to. */
  workStates: readonly string[];
  /** The team studies the codebase read-only: sandboxed where bubblewrap is there, checked before and after otherwise. */
  readOnlyCodebase: boolean;
  /** Its work is the Markdown document at the config's `deliverable` in its workspace (monitored as such). */
  producesDocument: boolean;
  /** The built-in agent (`fed-agent`) can do its work; otherwise a launch with it is refused up front. */
  builtInAgent: boolean;
  /** The launch prompt's part that only this archetype has: what its agent is expected to do, step by step. */
  agentBrief(context: LaunchContext, snapshot: SnapshotFrom<TMachine>, team: RegistryEntry): string;
  /**
   * Events this archetype makes of inbox signals, consulted before the shared table (src/engine/actors/
   * signal-events.ts); undefined leaves the signal to that table.
   */
  signalEvent?(
    message: SignalMessage,
    snapshot: SnapshotFrom<TMachine>,
  ): { type: string; [key: string]: unknown } | undefined;
  completion: CompletionPolicy<TMachine>;
  /** Health problems of a team in this state (docs/design/spec.md §6), besides the ones every team has; empty when healthy. */
  healthProblems(input: HealthInput<TMachine>): string[];
  /** Sample events and whole runs the model-based tests walk the machine with (test/model, test/machines). */
  modelTest: ModelTestSamples;
}

/**
 * How a launch that ends in a state ended well: the work is done, or it waits — for meta, or for questions.
 * `forMeta`: it waits on meta's decision about its work (a review, a merge), which someone is told about.
 */
export type Settled = { outcome: 'complete' } | { outcome: 'waiting'; next: string; forMeta?: boolean };

export interface CompletionPolicy<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** What a run that ends in `snapshot` means; undefined while work is left (an agent that stops here did not finish). */
  settled(snapshot: SnapshotFrom<TMachine>, team: RegistryEntry): Settled | undefined;
  /**
   * Why an agent's event that would finish the work cannot be accepted, if it cannot — checked before the
   * event is applied, since the state it enters is final. `events` are the ones it rules on (the
   * completions): any other event is applied without being judged, and without loading the lifecycle for
   * it. `check` is loaded lazily by the caller's `await`.
   */
  judge?: { events: readonly string[]; check(input: JudgeInput<TMachine>): Promise<Refusal | undefined> };
  /** The report meta gets when a launch ends with the work complete. */
  completionReport(
    context: LaunchContext,
    snapshot: SnapshotFrom<TMachine>,
  ): Promise<{ subject: string; body: string }>;
}

/**
 * Why a completion is refused: the reason (what the team fails with), the violations the agent can fix,
 * and whether it can fix them and send the completion again in the same launch.
 */
export type Refusal = Pick<CompletionRefusal, 'reason' | 'violations' | 'fixable'>;

export interface JudgeInput<TMachine extends AnyStateMachine = AnyStateMachine> {
  root: string;
  team: RegistryEntry;
  event: { type: string; [key: string]: unknown };
  config: FederationConfig;
  /** The lifecycle as it is; the event is known to be accepted by it. */
  snapshot: SnapshotFrom<TMachine>;
}

export interface HealthInput<TMachine extends AnyStateMachine = AnyStateMachine> {
  team: RegistryEntry;
  snapshot: SnapshotFrom<TMachine>;
  state: string;
  config: FederationConfig;
}

export interface ModelTestSamples {
  /** One sample per event type, and one per branch where a guard decides. */
  samples: readonly { type: string }[];
  /** Whole runs worth playing besides the shortest paths: loops, resuming, queues. */
  scenarios: Readonly<Record<string, readonly { type: string }[]>>;
}

/**
 * The launch prompt's progress lines: one per event the agent sends, read off the event schema's docs
 * (machines/event-docs.ts), with an example payload that the schema accepts.
 */
export function progressLines(lifecycle: MachineEntry): string[] {
  const schema = lifecycle.eventSchema as unknown as { options: readonly z.ZodType[] };
  return documentedEvents(schema)
    .filter(({ doc }) => doc.sentBy === 'agent')
    .map(
      ({ type, doc }) =>
        `\`fed event ${type}${doc.example ? ` --data '${JSON.stringify(doc.example)}'` : ''}\` — ${doc.summary}`,
    );
}

/** The sample with `type` (and, for a type with several samples, `field` = `value`). */
export function pickSamples<TEvent extends { type: string }>(
  samples: readonly TEvent[],
  keys: readonly string[],
): TEvent[] {
  return keys.map((key) => {
    const [type, condition] = key.split(':');
    const [field, value] = condition?.split('=') ?? [];
    const found = samples.find(
      (s) => s.type === type && (field === undefined || String((s as Record<string, unknown>)[field]) === value),
    );
    if (!found) throw new Error(`no sample event ${key}`);
    return found;
  });
}

/** Sample times: each event type its own minute, so a test can tell which event entered a state. */
export const sampleTime = (minute: number) => `2025-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

export const SAMPLE_FAIL_REASON = 'source files are inaccessible';

/** Samples of the events every lifecycle shares. */
export const sharedSamples = [
  {
    type: 'MISSION_ASSIGNED',
    signalId: 'sig-mission',
    subject: 'document the API',
    body: 'Write docs/api.md',
    at: sampleTime(1),
  },
  { type: 'DIRECTIVE_RECEIVED', signalId: 'sig-directive', subject: 'also cover errors', at: sampleTime(2) },
  { type: 'QUESTION_RECEIVED', signalId: 'sig-question', subject: 'eta?', from: 'meta', at: sampleTime(3) },
  { type: 'FAIL', reason: SAMPLE_FAIL_REASON, at: sampleTime(4) },
  { type: 'PAUSE', at: sampleTime(5) },
  { type: 'RESUME', at: sampleTime(6) },
] as const;
