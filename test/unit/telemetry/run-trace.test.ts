import { metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import {
  latestGenAiOnly,
  mergeResourceAttributes,
  providerName,
  RunTrace,
  WorkflowTrace,
} from '../../../src/apps/launch/run-trace.js';
import { type LaunchRun, otlpTracesUrl } from 'fed/testing';
import { RefusedError } from 'fed';

/** An SDK TracerProvider registered globally, whose ended spans stay in memory. */
function inMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  return exporter;
}

afterEach(() => {
  trace.disable();
  metrics.disable();
});

const run = (fields: Partial<LaunchRun> = {}): LaunchRun => ({
  runId: 'run-1',
  preset: 'claude',
  command: ['claude'],
  sessionId: 'sess-1',
  resumedSessionId: null,
  outcome: 'completed',
  reason: null,
  exitCode: 0,
  signal: null,
  turns: 3,
  model: 'claude-sonnet-4-5',
  inputTokens: 1000,
  outputTokens: 200,
  cacheReadTokens: 700,
  cacheWriteTokens: 50,
  costUsd: 0.12,
  resumeAt: null,
  fixAttempts: 0,
  promptPath: null,
  traceId: null,
  stateBefore: 'preparing',
  stateAfter: 'complete',
  progressed: true,
  sandboxed: false,
  transcriptPath: '/tmp/t.jsonl',
  startedAt: '2026-11-23T17:00:00.000Z',
  endedAt: '2026-11-23T17:01:00.000Z',
  ...fields,
});

const start = { team: 'docs', runId: 'run-1', model: null, sessionId: null, env: {} } as const;

describe('agent run traces (GenAI conventions)', () => {
  it('the well-known provider names of the CLIs, the preset name otherwise', () => {
    expect(
      ['claude', 'codex', 'gemini', 'copilot', 'fed-agent', 'custom'].map((p) => providerName(p as never)),
    ).toEqual(['anthropic', 'openai', 'gcp.gemini', 'copilot', 'fed-agent', 'custom']);
  });

  it('a CLI run is a CLIENT span with usage, cache tokens, cost and the session as conversation id', async () => {
    const spans = inMemoryTracing();
    const traced = await RunTrace.start({ ...start, preset: 'claude' });
    traced.transitions([
      {
        seq: 1,
        at: '2026-11-23T17:00:10.000Z',
        event: 'PLAN_READY',
        from: 'preparing',
        to: 'scanning',
        source: 'event',
      },
      {
        seq: 2,
        at: '2026-11-23T17:00:11.000Z',
        event: 'X',
        from: 'scanning',
        to: 'scanning',
        source: 'signal',
        note: 'ignored',
      },
    ]);
    traced.end(run());
    const [span] = spans.getFinishedSpans();
    expect(span).toMatchObject({ name: 'invoke_agent docs', kind: SpanKind.CLIENT });
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'gen_ai.agent.name': 'docs',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.conversation.id': 'sess-1',
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 700,
      'gen_ai.usage.cache_creation.input_tokens': 50,
      'fed.team.id': 'docs',
      'fed.run.id': 'run-1',
      'fed.run.outcome': 'completed',
      'fed.run.cost_usd': 0.12,
      'fed.run.turns': 3,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    // Only changes of state are events, at the time the journal gives.
    expect(span!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'preparing → scanning',
        { from: 'preparing', to: 'scanning', event: 'PLAN_READY', 'fed.lifecycle.source': 'event' },
      ],
    ]);
    expect(traced.traceId).toBe(span!.spanContext().traceId);
  });

  it('the built-in agent is INTERNAL; an unfinished run has error.type = its outcome and no made-up session', async () => {
    const spans = inMemoryTracing();
    const traced = await RunTrace.start({
      ...start,
      preset: 'fed-agent',
      env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' },
    });
    traced.end(
      run({
        preset: 'fed-agent',
        sessionId: null,
        outcome: 'failed',
        reason: 'no sources',
        model: null,
        costUsd: null,
      }),
    );
    const [span] = spans.getFinishedSpans();
    expect(span!.kind).toBe(SpanKind.INTERNAL);
    expect(span!.attributes).toMatchObject({ 'gen_ai.provider.name': 'fed-agent', 'error.type': 'failed' });
    expect(span!.attributes).not.toHaveProperty('gen_ai.conversation.id');
    expect(span!.attributes).not.toHaveProperty('gen_ai.system');
    expect(span!.attributes).not.toHaveProperty('fed.run.cost_usd');
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no sources' });
  });

  it('each host the network policy refused is an event of the run, the allowed ones not', async () => {
    const spans = inMemoryTracing();
    const traced = await RunTrace.start({ ...start, preset: 'claude' });
    const host = { port: 443, bytesUp: 0, bytesDown: 0 };
    traced.end(
      run({
        sandboxed: true,
        network: {
          policy: 'provider: api.anthropic.com',
          hosts: [
            { ...host, host: 'api.anthropic.com', allowed: true, connections: 3, bytesDown: 900 },
            { ...host, host: 'paste.example', allowed: false, connections: 2, reason: 'not in the policy' },
          ],
        },
      }),
    );
    const [span] = spans.getFinishedSpans();
    expect(span!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'network connection refused',
        {
          'server.address': 'paste.example',
          'server.port': 443,
          'fed.network.reason': 'not in the policy',
          'fed.network.connections': 2,
        },
      ],
    ]);
  });

  it('a launch that throws ends its span with the error code; a second end changes nothing', async () => {
    const spans = inMemoryTracing();
    const traced = await RunTrace.start({ ...start, preset: 'codex' });
    traced.abandon(new RefusedError('AGENT_COMMAND', 'cannot start the agent'));
    traced.end(run());
    expect(spans.getFinishedSpans()).toHaveLength(1);
    expect(spans.getFinishedSpans()[0]!.attributes).toMatchObject({ 'error.type': 'AGENT_COMMAND' });
  });

  it('a launch inside fed run is a child of the invoke_workflow span', async () => {
    const spans = inMemoryTracing();
    const workflow = await WorkflowTrace.start(['docs', 'api']);
    const traced = await RunTrace.start({ ...start, preset: 'claude', workflow });
    traced.end(run());
    workflow.end(['complete', 'failed']);
    const [agent, flow] = spans.getFinishedSpans();
    expect(flow).toMatchObject({ name: 'invoke_workflow', kind: SpanKind.INTERNAL });
    expect(flow!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'fed.run.failed': 1,
      'error.type': 'failed',
    });
    expect(agent!.spanContext().traceId).toBe(flow!.spanContext().traceId);
    expect(agent!.parentSpanContext?.spanId).toBe(flow!.spanContext().spanId);
  });

  it("gives the agent TRACEPARENT and the run's resource attributes only while tracing is on", async () => {
    const off = await RunTrace.start({ ...start, preset: 'claude' });
    expect(off.traceId).toBeNull();
    expect(off.agentEnv({ OTEL_RESOURCE_ATTRIBUTES: 'a=b' })).toEqual({});

    inMemoryTracing();
    const on = await RunTrace.start({ ...start, preset: 'claude' });
    const env = on.agentEnv({ OTEL_RESOURCE_ATTRIBUTES: 'service.namespace=ci, fed.run.id=stale' });
    expect(env.TRACEPARENT).toMatch(new RegExp(`^00-${on.traceId}-[0-9a-f]{16}-01$`));
    expect(env.OTEL_RESOURCE_ATTRIBUTES).toBe('service.namespace=ci,fed.team.id=docs,fed.run.id=run-1');
  });

  it('records the agent-run metrics when the run ends', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const provider = new MeterProvider({
      readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })],
    });
    expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
    const traced = await RunTrace.start({
      ...start,
      preset: 'claude',
      env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' },
    });
    traced.end(run({ outcome: 'rate-limited' }));
    await provider.forceFlush();
    const exported = exporter
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((s) => s.metrics);
    const byName = new Map(exported.map((m) => [m.descriptor.name, m]));
    expect([...byName.keys()].sort()).toEqual([
      'fed.run.cost_usd',
      'gen_ai.client.token.usage',
      'gen_ai.invoke_agent.duration',
    ]);
    expect(byName.get('gen_ai.invoke_agent.duration')!.dataPoints[0]!.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.agent.name': 'docs',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'error.type': 'rate-limited',
    });
    expect(
      byName
        .get('gen_ai.client.token.usage')!
        .dataPoints.map((p) => [p.attributes['gen_ai.token.type'], (p.value as { sum: number }).sum]),
    ).toEqual([
      ['input', 1000],
      ['output', 200],
    ]);
    await provider.shutdown();
  });

  it('OTEL_SEMCONV_STABILITY_OPT_IN is a list; resource attributes are percent-encoded; traces go to <endpoint>/v1/traces', () => {
    expect(latestGenAiOnly({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental' })).toBe(true);
    expect(latestGenAiOnly({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http' })).toBe(false);
    expect(latestGenAiOnly({})).toBe(false);
    expect(mergeResourceAttributes(undefined, { 'fed.team.id': 'a b,c' })).toBe('fed.team.id=a%20b%2Cc');
    expect(otlpTracesUrl('http://localhost:4318')).toBe('http://localhost:4318/v1/traces');
    expect(otlpTracesUrl('http://localhost:4318/otlp/')).toBe('http://localhost:4318/otlp/v1/traces');
    expect(otlpTracesUrl('http://localhost:4318/v1/metrics')).toBe('http://localhost:4318/v1/traces');
  });
});
