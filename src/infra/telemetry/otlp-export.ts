import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  EXPORT_TIMEOUT_MS,
  exportOutcome,
  PROCESSOR_SLACK_MS,
  shutDownWithin,
  type ExportOutcome,
} from './export-bounds.js';
import { fedResource } from './fed-resource.js';

export type { ExportOutcome } from './export-bounds.js';

/**
 * The SDK side of the metrics export: a MeterProvider whose reader sends OTLP/HTTP (JSON) to a collector.
 * Only metrics-export.ts loads this module, and only once a metric is recorded (see DeferredMeterProvider).
 */

/** How often metrics are sent while a process runs; what is left is sent by shutdown. */
const EXPORT_INTERVAL_MS = 15_000;

export interface OtlpExport {
  provider: MeterProvider;
  /** Send what was recorded since the last export and stop, in bounded time; never throws. */
  shutdown(): Promise<void>;
}

export function createOtlpExport(url: string, onExport: (outcome: ExportOutcome) => void): OtlpExport {
  const exporter = reporting(new OTLPMetricExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), onExport);
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: EXPORT_INTERVAL_MS,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS + PROCESSOR_SLACK_MS,
  });
  const provider = new MeterProvider({ resource: fedResource(), readers: [reader] });
  return {
    provider,
    shutdown: () => shutDownWithin(() => provider.shutdown({ timeoutMillis: EXPORT_TIMEOUT_MS + PROCESSOR_SLACK_MS })),
  };
}

/**
 * The exporter, telling `onExport` about each export. The SDK only passes failures to the OpenTelemetry
 * diagnostic logger, which is silent unless configured, so without this a dead collector would go unnoticed.
 */
function reporting(exporter: PushMetricExporter, onExport: (outcome: ExportOutcome) => void): PushMetricExporter {
  return {
    export: (data, done) =>
      exporter.export(data, (result) => {
        onExport(exportOutcome(result, 'metrics'));
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter),
    selectAggregation: exporter.selectAggregation?.bind(exporter),
  };
}
