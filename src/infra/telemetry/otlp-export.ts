import { setTimeout as sleep } from 'node:timers/promises';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { packageVersion } from '../package-info.js';
import { METER_NAME } from './meter.js';

/**
 * The SDK side of the metrics export: a MeterProvider whose reader sends OTLP/HTTP (JSON) to a collector.
 * Only metrics-export.ts loads this module, and only once a metric is recorded (see DeferredMeterProvider).
 */

/** How often metrics are sent while a process runs; what is left is sent by shutdown. */
const EXPORT_INTERVAL_MS = 15_000;
/**
 * How long one export may take, retries included. Below the exporter's first retry delay (0.8–1.2 s), so
 * a refused connection fails at once instead of waiting to be refused again: a CLI command would rather
 * drop one export than stall on a dead collector.
 */
const EXPORT_TIMEOUT_MS = 700;
/** Slack for the reader over the exporter's own timeout, so the exporter's failure (and its error) wins. */
const READER_SLACK_MS = 500;

/** What became of one export: sent, or failed with the error the exporter gave. */
export type ExportOutcome = { ok: true } | { ok: false; error: Error };

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
    exportTimeoutMillis: EXPORT_TIMEOUT_MS + READER_SLACK_MS,
  });
  const provider = new MeterProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ 'service.name': METER_NAME, 'service.version': packageVersion() }),
    ),
    readers: [reader],
  });
  return {
    provider,
    async shutdown() {
      try {
        // The provider bounds its own flush; the race only guards against a flush that never settles.
        await Promise.race([
          provider.shutdown({ timeoutMillis: EXPORT_TIMEOUT_MS + READER_SLACK_MS }),
          sleep(EXPORT_TIMEOUT_MS + 2 * READER_SLACK_MS, undefined, { ref: false }),
        ]);
      } catch {
        // A failed final export was already reported through onExport.
      }
    },
  };
}

/** ExportResultCode.SUCCESS of @opentelemetry/core, which fed does not depend on directly. */
const EXPORT_SUCCESS = 0;

/**
 * The exporter, telling `onExport` about each export. The SDK only passes failures to the OpenTelemetry
 * diagnostic logger, which is silent unless configured, so without this a dead collector would go unnoticed.
 */
function reporting(exporter: PushMetricExporter, onExport: (outcome: ExportOutcome) => void): PushMetricExporter {
  return {
    export: (data, done) =>
      exporter.export(data, (result) => {
        onExport(
          result.code === EXPORT_SUCCESS
            ? { ok: true }
            : { ok: false, error: result.error ?? new Error('the collector did not accept the metrics') },
        );
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter),
    selectAggregation: exporter.selectAggregation?.bind(exporter),
  };
}
