import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { fakeAgent, federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';
import { closedPort, otlpReceiver, type OtlpExportRequest } from '../helpers/otlp-receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import { typescriptProject } from '../helpers/fixture-repo.js';

/** The fake Claude Code that reports the trace context it was given (test/fixtures/agents/traced-claude.mjs). */
const TRACED_CLAUDE = fileURLToPath(new URL('../fixtures/agents/traced/claude', import.meta.url));
const SESSION = 'b6f1c0de-5e55-4d0e-9a11-000000000027';

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: AnyValue }[];
  events?: { name: string; timeUnixNano: string; attributes: { key: string; value: AnyValue }[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: AnyValue }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

/** OTLP's span kinds, as the JSON encoding numbers them. */
const INTERNAL = 1;
const CLIENT = 3;
const STATUS_ERROR = 2;

const value = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
const attributesOf = (list: { key: string; value: AnyValue }[]) =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

/** Every span exported to /v1/traces, with its attributes as an object. */
function spans(requests: readonly OtlpExportRequest[]) {
  return requests
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => (r.body as OtlpTraces).resourceSpans)
    .flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) =>
        ss.spans.map((span) => ({
          ...span,
          attrs: attributesOf(span.attributes),
          resource: attributesOf(rs.resource.attributes),
          scope: ss.scope.name,
        })),
      ),
    );
}

/** Metric names exported to /v1/metrics. */
function metricNames(requests: readonly OtlpExportRequest[]): string[] {
  type Metrics = { resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[] };
  return requests
    .filter((r) => r.path === '/v1/metrics')
    .flatMap((r) => (r.body as Metrics).resourceMetrics)
    .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.name)));
}

/** A federation whose docs team runs the traced fake Claude; the env file is where it reports what it got. */
async function tracedFederation() {
  const { root } = await federationWithMission();
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { model: 'claude-sonnet-4-5' } }));
  const envFile = inDocsWorkspace(root, 'agent-env.json');
  const agentEnv = () =>
    JSON.parse(readFileSync(envFile, 'utf8')) as Record<
      'TRACEPARENT' | 'TRACESTATE' | 'OTEL_RESOURCE_ATTRIBUTES',
      string | null
    >;
  const lastRun = async () =>
    (
      JSON.parse((await runFed(['--root', root, 'team', 'show', 'docs', '--json'])).stdout) as {
        lastRun: { runId: string; traceId: string | null };
      }
    ).lastRun;
  return { root, envFile, agentEnv, lastRun };
}

const telemetryOn = (url: string, envFile: string) => ({
  FED_TELEMETRY_ENABLED: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  TRACE_ENV_FILE: envFile,
  TRACED_SESSION: SESSION,
});

describe('GenAI traces (OTLP/HTTP)', () => {
  it('fed launch sends an invoke_agent span by the GenAI conventions, and the agent gets its trace context', async () => {
    const collector = await otlpReceiver();
    const { root, envFile, agentEnv, lastRun } = await tracedFederation();
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', TRACED_CLAUDE], {
      env: { ...telemetryOn(collector.url, envFile), OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test' },
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stderr).not.toContain('telemetry');

    const run = await lastRun();
    const exported = spans(collector.requests);
    expect(exported.map((s) => s.name)).toEqual(['invoke_agent docs']);
    const span = exported[0]!;
    expect(span).toMatchObject({ kind: CLIENT, scope: 'fed', resource: { 'service.name': 'fed' } });
    expect(span.parentSpanId ?? '').toBe('');
    expect(span.attrs).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      // v1.36's name of the provider, emitted too unless OTEL_SEMCONV_STABILITY_OPT_IN says otherwise.
      'gen_ai.system': 'anthropic',
      'gen_ai.agent.name': 'docs',
      'gen_ai.conversation.id': SESSION,
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 340,
      // Cache tokens are set when the preset reads them from the CLI's usage (test/unit/telemetry/run-trace.test.ts).
      ...(span.attrs['gen_ai.usage.cache_read.input_tokens'] === undefined
        ? {}
        : { 'gen_ai.usage.cache_read.input_tokens': 800, 'gen_ai.usage.cache_creation.input_tokens': 150 }),
      'fed.team.id': 'docs',
      'fed.run.id': run.runId,
      'fed.run.outcome': 'completed',
      'fed.run.cost_usd': 0.25,
      'fed.run.turns': 4,
    });
    expect(span.status?.code ?? 0).not.toBe(STATUS_ERROR);
    const transitions = (span.events ?? []).map((e) => ({ name: e.name, ...attributesOf(e.attributes) }));
    expect(transitions).toEqual(
      expect.arrayContaining([
        {
          name: 'preparing → scanning',
          from: 'preparing',
          to: 'scanning',
          event: 'PLAN_READY',
          'fed.lifecycle.source': 'event',
        },
        expect.objectContaining({ name: 'aggregating → complete', from: 'aggregating', to: 'complete' }),
      ]),
    );

    // The agent's trace context is the span's: its own spans (Claude Code's) join the trace under fed's.
    const env = agentEnv();
    expect(env.TRACEPARENT).toBe(`00-${span.traceId}-${span.spanId}-01`);
    expect(env.TRACESTATE).toBeNull();
    expect(env.OTEL_RESOURCE_ATTRIBUTES).toBe(`deployment.environment=test,fed.team.id=docs,fed.run.id=${run.runId}`);
    expect(run.traceId).toBe(span.traceId);

    expect(metricNames(collector.requests)).toEqual(
      expect.arrayContaining(['gen_ai.invoke_agent.duration', 'gen_ai.client.token.usage', 'fed.run.cost_usd']),
    );
  });

  it('fed run: each launch is a child of the invoke_workflow span; gen_ai_latest_experimental drops the v1.36 names', async () => {
    const collector = await otlpReceiver();
    const { root, envFile, agentEnv } = await tracedFederation();
    const result = await runFed(['--root', root, 'run', '--team', 'docs', '--agent', TRACED_CLAUDE], {
      env: { ...telemetryOn(collector.url, envFile), OTEL_SEMCONV_STABILITY_OPT_IN: 'http,gen_ai_latest_experimental' },
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });

    const exported = spans(collector.requests);
    const workflow = exported.find((s) => s.name === 'invoke_workflow')!;
    const agent = exported.find((s) => s.name === 'invoke_agent docs')!;
    expect(workflow).toMatchObject({
      kind: INTERNAL,
      attrs: { 'gen_ai.operation.name': 'invoke_workflow', 'fed.run.teams': 1, 'fed.run.completed': 1 },
    });
    expect(agent).toMatchObject({ traceId: workflow.traceId, parentSpanId: workflow.spanId, kind: CLIENT });
    expect(agent.attrs).toMatchObject({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.agent.name': 'docs' });
    expect(agent.attrs).not.toHaveProperty('gen_ai.system');
    expect(agentEnv().TRACEPARENT).toBe(`00-${workflow.traceId}-${agent.spanId}-01`);
  });

  it('a run that does not complete ends its span with error.type = the outcome, and no made-up session', async () => {
    const collector = await otlpReceiver();
    const { root } = await federationWithMission();
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('exit-midway')], {
      env: { FED_TELEMETRY_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    });
    // A crash after progress pauses the team (the exit code is the launch's rule, not the trace's).
    expect(result.stderr).not.toContain('telemetry');
    const span = spans(collector.requests).find((s) => s.name === 'invoke_agent docs')!;
    expect(span.kind).toBe(CLIENT);
    expect(span.attrs['gen_ai.provider.name']).toBe('custom');
    expect(span.attrs['error.type']).toBe(span.attrs['fed.run.outcome']);
    expect(span.attrs['fed.run.outcome']).not.toBe('completed');
    expect(span.status?.code).toBe(STATUS_ERROR);
    // A CLI that reports no session gets no conversation id: never a made-up one.
    expect(span.attrs).not.toHaveProperty('gen_ai.conversation.id');
  });

  it('the built-in agent is an INTERNAL span, its provider fed-agent', async () => {
    const collector = await otlpReceiver();
    const root = typescriptProject(tempDir());
    const fed = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runFed(['--root', root, ...args], { cwd: root, env, timeoutMs: 60_000 });
    expect((await fed(['init'])).code).toBe(0);
    expect((await fed(['team', 'onboard', 'helper', '--archetype', 'consultant'])).code).toBe(0);
    for (const [type, subject] of [
      ['directive', 'Answer questions about tiny-ts'],
      ['question', 'Where is the entry point?'],
    ])
      expect((await fed(['signal', 'send', '--to', 'helper', '--type', type!, '--subject', subject!])).code).toBe(0);
    const result = await fed(['launch', '--team', 'helper'], {
      FED_TELEMETRY_ENABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const span = spans(collector.requests).find((s) => s.name === 'invoke_agent helper')!;
    expect(span).toMatchObject({
      kind: INTERNAL,
      attrs: { 'gen_ai.provider.name': 'fed-agent', 'gen_ai.agent.name': 'helper', 'fed.team.id': 'helper' },
    });
  });

  it('with telemetry off nothing is sent and the agent gets no trace context', async () => {
    const collector = await otlpReceiver();
    const { root, envFile, agentEnv, lastRun } = await tracedFederation();
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', TRACED_CLAUDE], {
      env: { ...telemetryOn(collector.url, envFile), FED_TELEMETRY_ENABLED: 'false' },
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(collector.requests).toEqual([]);
    expect(agentEnv()).toEqual({ TRACEPARENT: null, TRACESTATE: null, OTEL_RESOURCE_ATTRIBUTES: null });
    expect((await lastRun()).traceId).toBeNull();
  });

  it('a dead collector costs a launch one warning and a bounded moment, never the run', async () => {
    const { root, envFile } = await tracedFederation();
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', TRACED_CLAUDE], {
      env: telemetryOn(dead, envFile),
    });
    const elapsed = Date.now() - started;
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const warnings = result.stderr.split('\n').filter((line) => line.includes('telemetry'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: telemetry: (metrics|spans) could not be sent to http:\/\/127\.0\.0\.1:\d+\/v1\//,
    );
    expect(elapsed).toBeLessThan(15_000);
  });
});
