import { createNoopMeter } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { DeferredMeterProvider } from '../../../src/infra/telemetry/deferred-meter-provider.js';

function sdkProvider() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const collect = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((s) =>
      s.metrics.flatMap((m) =>
        m.dataPoints.map((p) => {
          const v = p.value as number | { count: number; sum?: number };
          const shown = typeof v === 'number' ? String(v) : `count=${v.count} sum=${v.sum}`;
          return `${m.descriptor.name} ${JSON.stringify(p.attributes)} ${shown}`;
        }),
      ),
    );
  };
  return { provider, collect };
}

describe('DeferredMeterProvider', () => {
  it('asks for the real provider once, on the first measurement, and replays what came before into it', async () => {
    let asked = 0;
    const deferred = new DeferredMeterProvider(() => asked++);
    const meter = deferred.getMeter('fed');
    const sent = meter.createCounter('fed.signals.sent');
    const teams = meter.createGauge('fed.teams');
    expect(asked).toBe(0);
    expect(deferred.used).toBe(false);

    sent.add(1, { team: 'meta' });
    sent.add(2, { team: 'docs' });
    teams.record(7);
    expect(asked).toBe(1);
    expect(deferred.used).toBe(true);

    const real = sdkProvider();
    deferred.attach(real.provider);
    sent.add(4, { team: 'meta' });
    teams.record(9);
    expect(asked).toBe(1);
    expect((await real.collect()).sort()).toEqual([
      'fed.signals.sent {"team":"docs"} 2',
      'fed.signals.sent {"team":"meta"} 5',
      'fed.teams {} 9',
    ]);
  });

  it('replays histogram records too (the agent-run metrics)', async () => {
    const deferred = new DeferredMeterProvider(() => undefined);
    const duration = deferred.getMeter('fed').createHistogram('gen_ai.invoke_agent.duration');
    duration.record(3, { 'gen_ai.agent.name': 'docs' });
    const real = sdkProvider();
    deferred.attach(real.provider);
    duration.record(5, { 'gen_ai.agent.name': 'docs' });
    expect(await real.collect()).toEqual(['gen_ai.invoke_agent.duration {"gen_ai.agent.name":"docs"} count=2 sum=8']);
  });

  it('a process that records nothing never asks for the SDK', () => {
    let asked = 0;
    const deferred = new DeferredMeterProvider(() => asked++);
    deferred.getMeter('fed').createCounter('fed.signals.sent');
    expect(asked).toBe(0);
  });

  it("leaves the OpenTelemetry API's shared no-op meter alone", () => {
    const noop = createNoopMeter();
    const before = noop.createCounter;
    new DeferredMeterProvider(() => undefined).getMeter('fed').createCounter('x').add(1);
    expect(createNoopMeter().createCounter).toBe(before);
    expect(noop.createCounter('y')).not.toHaveProperty('record');
  });
});
