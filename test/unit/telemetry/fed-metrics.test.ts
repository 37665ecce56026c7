import { writeFileSync } from 'node:fs';
import { metrics, type Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycleInputs, openFederation, runMonitorCycle, sendSignal, updateRegistry } from 'fed';
import { federationPaths, getTeam, otlpMetricsUrl, readRegistry, TeamInboxConsumer, validateConfig } from 'fed/testing';
import { recordSignalSent } from '../../../src/infra/telemetry/fed-metrics.js';
import { signalFederation } from '../../helpers/signal-federation.js';

interface Exported {
  provider: MeterProvider;
  /** The data points of the last export, by metric name. */
  collect: () => Promise<Map<string, { attributes: Attributes; value: number }[]>>;
}

/** An SDK provider whose exports stay in memory, registered as the global one. */
function inMemoryProvider(): Exported {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const provider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })],
  });
  expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
  return {
    provider,
    async collect() {
      await provider.forceFlush();
      const metricsOf = (exporter.getMetrics().at(-1)?.scopeMetrics ?? []).flatMap((scope) => scope.metrics);
      return new Map(
        metricsOf.map((metric: MetricData) => [
          metric.descriptor.name,
          metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value as number })),
        ]),
      );
    },
  };
}

let registered: MeterProvider | undefined;
afterEach(async () => {
  await registered?.shutdown();
  registered = undefined;
  metrics.disable();
});

describe('fed metrics', () => {
  it('are made on first use: a record before any provider is lost, the next one after registering is exported', async () => {
    metrics.disable();
    recordSignalSent('docs', 'report'); // no provider: a no-op, and it must not pin a no-op instrument
    const sdk = inMemoryProvider();
    registered = sdk.provider;
    recordSignalSent('docs', 'report');
    expect((await sdk.collect()).get('fed.signals.sent')).toEqual([
      { attributes: { team: 'docs', type: 'report' }, value: 1 },
    ]);
  });

  it('follow a new provider when the global one changes', async () => {
    const first = inMemoryProvider();
    recordSignalSent('meta', 'directive');
    await first.provider.shutdown();
    metrics.disable();
    const second = inMemoryProvider();
    registered = second.provider;
    recordSignalSent('meta', 'directive');
    recordSignalSent('meta', 'directive');
    expect((await second.collect()).get('fed.signals.sent')).toEqual([
      { attributes: { team: 'meta', type: 'directive' }, value: 2 },
    ]);
  });

  it('are recorded where things happen: send, consume, acknowledge, transition, registry conflict, monitor cycle', async () => {
    const fed = await signalFederation(['docs']);
    const sdk = inMemoryProvider();
    registered = sdk.provider;
    const config = validateConfig({}, 'federate.config.json').config;

    await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'directive', subject: 'Write the doc', body: 'all of it' },
      { durable: false },
    );
    const team = getTeam(readRegistry(fed.root), 'docs');
    await new TeamInboxConsumer(openFederation(fed.root), team, { durable: false }).consume();
    await applyLifecycleInputs(
      openFederation(fed.root),
      team,
      [{ source: 'event', event: { type: 'PLAN_READY', sources: ['src'] } }],
      { durable: false },
    );
    let calls = 0;
    await updateRegistry(openFederation(fed.root), (registry) => {
      // Another writer lands between this writer's read and its commit, once.
      if (++calls === 1)
        writeFileSync(
          federationPaths(fed.root).registry,
          JSON.stringify({ ...registry, lockVersion: registry.lockVersion + 1 }),
        );
      return registry;
    });
    await runMonitorCycle(openFederation(fed.root), { config });

    const exported = await sdk.collect();
    expect(exported.get('fed.signals.sent')).toEqual([
      { attributes: { team: 'meta', type: 'directive' }, value: 1 },
      // The lifecycle's report of preparing → scanning to meta.
      { attributes: { team: 'docs', type: 'report' }, value: 1 },
    ]);
    expect(exported.get('fed.signals.received')).toEqual([
      { attributes: { team: 'docs', type: 'directive', outcome: 'applied' }, value: 1 },
    ]);
    expect(exported.get('fed.signals.acknowledged')).toEqual([
      { attributes: { team: 'docs', type: 'directive' }, value: 1 },
    ]);
    expect(exported.get('fed.lifecycle.transitions')).toEqual([
      { attributes: { team: 'docs', archetype: 'deliverable', from: 'preparing', to: 'scanning' }, value: 1 },
    ]);
    expect(exported.get('fed.registry.conflicts')).toEqual([{ attributes: {}, value: 1 }]);
    expect(exported.get('fed.teams')).toEqual([{ attributes: {}, value: 1 }]);
    expect(exported.get('fed.teams.unhealthy')).toEqual([{ attributes: {}, value: 0 }]);

    // Bounded attributes only: never a signal id or a file name.
    const attributes = [...exported.values()].flat().map((point) => point.attributes);
    for (const attrs of attributes) {
      expect(
        Object.keys(attrs).every((key) => ['team', 'type', 'outcome', 'archetype', 'from', 'to'].includes(key)),
        JSON.stringify(attrs),
      ).toBe(true);
      expect(
        Object.values(attrs).some((value) => /[0-9a-f]{8}-[0-9a-f]{4}-|\.json/.test(String(value))),
        JSON.stringify(attrs),
      ).toBe(false);
    }
  });

  it('a signal redelivered after it was processed is not counted again', async () => {
    const fed = await signalFederation(['docs']);
    const sdk = inMemoryProvider();
    registered = sdk.provider;
    const sent = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'question', subject: 'Scope?' },
      { durable: false },
    );
    const team = getTeam(readRegistry(fed.root), 'docs');
    await applyLifecycleInputs(openFederation(fed.root), team, [{ source: 'signal', signal: sent.message }], {
      durable: false,
    });
    await applyLifecycleInputs(openFederation(fed.root), team, [{ source: 'signal', signal: sent.message }], {
      durable: false,
    });
    expect((await sdk.collect()).get('fed.signals.received')).toEqual([
      { attributes: { team: 'docs', type: 'question', outcome: 'applied' }, value: 1 },
    ]);
  });
});

describe('otlpMetricsUrl', () => {
  it.each([
    ['http://localhost:18888', 'http://localhost:18888/v1/metrics'],
    ['http://collector:4318/', 'http://collector:4318/v1/metrics'],
    ['https://otel.example.com/otlp', 'https://otel.example.com/otlp/v1/metrics'],
    ['http://collector:4318/v1/metrics', 'http://collector:4318/v1/metrics'],
    // The traces' path names the same collector: metrics go beside the spans.
    ['http://collector:4318/v1/traces', 'http://collector:4318/v1/metrics'],
  ])('%s → %s (a base URL gets /v1/metrics)', (endpoint, url) => {
    expect(otlpMetricsUrl(endpoint)).toBe(url);
  });
});
