import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMarkdownText } from 'fed/testing';
import { recordDeliverableMetrics } from '../../../src/infra/telemetry/deliverable-metrics.js';

let provider: MeterProvider | undefined;

/** A real SDK provider, registered globally, whose exports stay in memory; returns the exported points by metric. */
function registerInMemoryProvider(): () => Promise<Record<string, { attributes: unknown; value: unknown }[]>> {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  provider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })],
  });
  expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
  return async () => {
    await provider?.forceFlush();
    const exported = (exporter.getMetrics().at(-1)?.scopeMetrics ?? []).flatMap((scope) => scope.metrics);
    return Object.fromEntries(
      exported.map((m) => [m.descriptor.name, m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }))]),
    );
  };
}

afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
  metrics.disable();
});

const summary = checkMarkdownText(
  '# T\n\nOne. Two.\n\n## A\n\n```sh\nls\n```\n\n```mermaid\nflowchart LR\n  a --> b\n```\n\n## Next steps\n\n- Go.\n',
).summary;

describe('deliverable metrics (docs/design/spec.md §6)', () => {
  it('records size, sections and code examples of the latest deliverable per team', async () => {
    const collect = registerInMemoryProvider();
    recordDeliverableMetrics('docs', { ...summary, size_bytes: 1 });
    recordDeliverableMetrics('docs', summary);
    recordDeliverableMetrics('api', { ...summary, sections: [] });
    expect(await collect()).toEqual({
      'deliverable.size_bytes': [
        { attributes: { team: 'docs' }, value: summary.size_bytes },
        { attributes: { team: 'api' }, value: summary.size_bytes },
      ],
      'deliverable.sections': [
        { attributes: { team: 'docs' }, value: 2 },
        { attributes: { team: 'api' }, value: 0 },
      ],
      'deliverable.code_examples': [
        { attributes: { team: 'docs' }, value: 2 },
        { attributes: { team: 'api' }, value: 2 },
      ],
    });
  });

  it('makes its instruments on first use, so a provider registered after a record still receives the next', async () => {
    recordDeliverableMetrics('docs', summary); // no provider yet: a no-op that must not pin no-op instruments
    const collect = registerInMemoryProvider();
    recordDeliverableMetrics('docs', summary);
    expect(Object.keys(await collect())).toEqual([
      'deliverable.size_bytes',
      'deliverable.sections',
      'deliverable.code_examples',
    ]);
  });
});
