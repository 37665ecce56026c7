import type { AgentPresetName } from '../../core/schema/config.js';
import { FedError } from '../../core/errors.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import { recordAgentRun } from '../../infra/telemetry/fed-metrics.js';
import { startSpan, type FedSpan } from '../../infra/telemetry/spans.js';
import { AGENT_PRESET_CATALOG } from './presets/catalog.js';

/**
 * The traces of agent runs, by the OpenTelemetry GenAI semantic conventions (development status): one
 * `invoke_agent <team>` span per launch — a child of the `invoke_workflow` span of the `fed run` that
 * started it — with the run's provider, model, session, tokens, cost and outcome, and the lifecycle's
 * transitions as span events; and the agent metrics (telemetry/fed-metrics.ts) when the run ends. The agent
 * gets the span's trace context (TRACEPARENT), so a CLI that reads it (Claude Code) puts its own spans
 * under fed's. With telemetry off every span is a no-op: no trace id, nothing in the agent's environment.
 */

/** The GenAI conventions' stability opt-in (a comma-separated list). */
export const SEMCONV_OPT_IN_ENV = 'OTEL_SEMCONV_STABILITY_OPT_IN';

/**
 * Whether only the latest experimental GenAI conventions are wanted (`gen_ai_latest_experimental`). fed
 * always emits those; by default it also emits what v1.36 and before named differently — `gen_ai.system`
 * beside `gen_ai.provider.name`, same value — for backends that still read it. The opt-in drops it.
 */
export function latestGenAiOnly(env: NodeJS.ProcessEnv): boolean {
  return (env[SEMCONV_OPT_IN_ENV] ?? '')
    .split(',')
    .map((value) => value.trim())
    .includes('gen_ai_latest_experimental');
}

/** The conventions' `gen_ai.provider.name` of a preset's CLI: its provider's well-known name, else the preset's. */
export function providerName(preset: AgentPresetName): string {
  return AGENT_PRESET_CATALOG[preset].provider ?? preset;
}

type Attributes = Record<string, string | number>;

/** The attributes of `values` that are known (null and undefined left out). */
function known(values: Record<string, string | number | null | undefined>): Attributes {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value != null)) as Attributes;
}

/** `OTEL_RESOURCE_ATTRIBUTES` as the user set it, with fed's own keys set (and any the user gave them replaced). */
export function mergeResourceAttributes(user: string | undefined, own: Record<string, string>): string {
  const kept = (user ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair && !((pair.split('=')[0] ?? '').trim() in own));
  return [...kept, ...Object.entries(own).map(([key, value]) => `${key}=${encodeURIComponent(value)}`)].join(',');
}

export interface RunTraceStart {
  team: string;
  runId: string;
  preset: AgentPresetName;
  /** The model asked for (config or preset), when known before the run. */
  model: string | null;
  /** The CLI's session id when known before the run (a resumed or pre-assigned one); never made up. */
  sessionId: string | null;
  /** The launch's environment (OTEL_SEMCONV_STABILITY_OPT_IN). */
  env: NodeJS.ProcessEnv;
  /** The `invoke_workflow` span of the `fed run` this launch is part of. */
  workflow?: WorkflowTrace;
}

/** One agent run's `invoke_agent` span, from just before the agent starts to the run's record. */
export class RunTrace {
  private readonly startedAt = Date.now();

  private constructor(
    private readonly span: FedSpan,
    private readonly start: RunTraceStart,
    private readonly legacy: boolean,
  ) {}

  static async start(start: RunTraceStart): Promise<RunTrace> {
    const legacy = !latestGenAiOnly(start.env);
    const span = await startSpan(`invoke_agent ${start.team}`, {
      // The built-in agent is fed's own code in a process of its own; any other agent is a CLI fed calls.
      kind: start.preset === 'fed-agent' ? 'internal' : 'client',
      attributes: known({
        ...genAiAttributes(start.preset, start.team, start.model, legacy),
        'gen_ai.conversation.id': start.sessionId,
        'fed.team.id': start.team,
        'fed.run.id': start.runId,
      }),
      parent: start.workflow?.span,
    });
    return new RunTrace(span, start, legacy);
  }

  /** The run's trace id, or null when tracing is off. */
  get traceId(): string | null {
    return this.span.traceId;
  }

  /**
   * The agent's share of the trace: its trace context (TRACEPARENT, TRACESTATE) and OTEL_RESOURCE_ATTRIBUTES
   * naming the team and run, merged into what `base` sets; nothing when tracing is off.
   */
  agentEnv(base: NodeJS.ProcessEnv): Record<string, string> {
    const traceContext = this.span.traceContextEnv();
    if (!traceContext.TRACEPARENT) return {};
    return {
      ...traceContext,
      OTEL_RESOURCE_ATTRIBUTES: mergeResourceAttributes(base.OTEL_RESOURCE_ATTRIBUTES, {
        'fed.team.id': this.start.team,
        'fed.run.id': this.start.runId,
      }),
    };
  }

  /** Lifecycle journal lines seen during the run: each change of state becomes a span event, at its time. */
  transitions(lines: readonly JournalLine[]): void {
    for (const line of lines) {
      if (line.from === line.to) continue;
      this.span.addEvent(
        `${line.from} → ${line.to}`,
        { from: line.from, to: line.to, event: line.event, 'fed.lifecycle.source': line.source },
        new Date(line.at),
      );
    }
  }

  /** The run is recorded: its usage and outcome go on the span, which ends, and into the agent metrics. */
  end(run: LaunchRun): void {
    // Each host the network policy refused, as an event a person can find in the run's trace.
    for (const host of run.network?.hosts.filter((h) => !h.allowed) ?? [])
      this.span.addEvent('network connection refused', {
        'server.address': host.host,
        'server.port': host.port,
        'fed.network.reason': host.reason ?? '',
        'fed.network.connections': host.connections,
      });
    const failed = run.outcome !== 'completed';
    const model = run.model ?? this.start.model;
    this.span.setAttributes(
      known({
        'gen_ai.request.model': model,
        'gen_ai.conversation.id': run.sessionId,
        'gen_ai.usage.input_tokens': run.inputTokens,
        'gen_ai.usage.output_tokens': run.outputTokens,
        'gen_ai.usage.cache_read.input_tokens': run.cacheReadTokens,
        'gen_ai.usage.cache_creation.input_tokens': run.cacheWriteTokens,
        'fed.run.outcome': run.outcome,
        'fed.run.cost_usd': run.costUsd,
        'fed.run.turns': run.turns,
      }),
    );
    this.span.end(failed ? { type: run.outcome, message: run.reason } : undefined);
    recordAgentRun(
      known({
        ...genAiAttributes(this.start.preset, this.start.team, model, this.legacy),
        'error.type': failed ? run.outcome : null,
      }),
      {
        seconds: (Date.now() - this.startedAt) / 1000,
        inputTokens: run.inputTokens,
        outputTokens: run.outputTokens,
        costUsd: run.costUsd,
      },
    );
  }

  /** The launch failed before the run was recorded: the span ends with the error (no-op once ended). */
  abandon(error: unknown): void {
    this.span.end({
      type: error instanceof FedError ? error.code : error instanceof Error ? error.name : '_OTHER',
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

/** The attributes a run's span and metrics share (the conventions' invoke_agent set). */
function genAiAttributes(preset: AgentPresetName, team: string, model: string | null, legacy: boolean): Attributes {
  const provider = providerName(preset);
  return known({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': provider,
    ...(legacy ? { 'gen_ai.system': provider } : {}),
    'gen_ai.agent.name': team,
    'gen_ai.request.model': model,
  });
}

/** The `invoke_workflow` span of one `fed run`: the parent of every launch it starts. */
export class WorkflowTrace {
  private constructor(readonly span: FedSpan) {}

  static async start(teams: readonly string[]): Promise<WorkflowTrace> {
    return new WorkflowTrace(
      await startSpan('invoke_workflow', {
        kind: 'internal',
        attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'fed.run.teams': teams.length },
      }),
    );
  }

  /** Every launch is over: how they ended; the workflow failed when any team did. */
  end(outcomes: readonly (string | null)[]): void {
    const count = (...wanted: string[]) => outcomes.filter((o) => o !== null && wanted.includes(o)).length;
    const failed = count('failed', 'error');
    this.span.setAttributes({
      'fed.run.completed': count('complete'),
      'fed.run.failed': failed,
      'fed.run.paused': count('paused'),
    });
    this.span.end(failed ? { type: 'failed', message: `${failed} of ${outcomes.length} teams failed` } : undefined);
  }
}
