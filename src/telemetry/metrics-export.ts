import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { metrics } from '@opentelemetry/api';
import type * as OtlpHttpExporter from '@opentelemetry/exporter-metrics-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkMetrics from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { FedError } from '../errors.js';
import { packageVersion } from '../package-info.js';
import { METER_NAME } from './meter.js';

/**
 * Exporting fed's metrics over OTLP/HTTP (JSON) — the SDK side, for a process that wants its metrics
 * sent (the CLI). Library code records through the API alone and never needs this.
 */
export const OTLP_METRICS_PATH = '/v1/metrics';

/**
 * The OTLP/HTTP convention (as for OTEL_EXPORTER_OTLP_ENDPOINT): an endpoint is the collector's base URL
 * and metrics go to `<base>/v1/metrics`. An endpoint that already ends in `/v1/metrics` is kept as it is.
 */
export function otlpMetricsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(OTLP_METRICS_PATH)) url.pathname = `${path}${OTLP_METRICS_PATH}`;
  return url.href;
}

export interface MetricsExportOptions {
  /** Collector base URL (see otlpMetricsUrl). */
  endpoint: string;
  /** Told about every export that failed; the metrics of that export are dropped. */
  onExportFailure?: (error: Error) => void;
}

export interface MetricsExport {
  /** Where metrics are sent. */
  url: string;
  /** Send what was recorded since the last export and stop, in bounded time; never throws. */
  shutdown(): Promise<void>;
}

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

/**
 * Register a global MeterProvider that sends fed's metrics to an OTLP/HTTP collector. Instruments made
 * lazily (telemetry/meter.ts) start recording into it at once. A second registration in one process is
 * refused: the OpenTelemetry API keeps the first provider.
 */
export function startMetricsExport(options: MetricsExportOptions): MetricsExport {
  const { MeterProvider, PeriodicExportingMetricReader, OTLPMetricExporter, defaultResource, resourceFromAttributes } = loadSdk();
  const url = otlpMetricsUrl(options.endpoint);
  const exporter = reportingFailures(new OTLPMetricExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), options.onExportFailure);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: EXPORT_INTERVAL_MS, exportTimeoutMillis: EXPORT_TIMEOUT_MS + READER_SLACK_MS });
  const provider = new MeterProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': METER_NAME, 'service.version': packageVersion() })),
    readers: [reader],
  });
  if (!metrics.setGlobalMeterProvider(provider)) {
    void provider.shutdown();
    throw new FedError('TELEMETRY_REGISTERED', 'a global OpenTelemetry MeterProvider is already registered in this process; fed records into it', { refusal: false });
  }
  return {
    url,
    async shutdown() {
      try {
        // The provider bounds its own flush; the race only guards against a flush that never settles.
        await Promise.race([
          provider.shutdown({ timeoutMillis: EXPORT_TIMEOUT_MS + READER_SLACK_MS }),
          sleep(EXPORT_TIMEOUT_MS + 2 * READER_SLACK_MS, undefined, { ref: false }),
        ]);
      } catch {
        // A failed final export was already reported through onExportFailure.
      } finally {
        metrics.disable();
      }
    },
  };
}

/**
 * The SDK and the exporter take ~160 ms to load, which every CLI command would pay at start-up, metrics or
 * not; so only a process that exports loads them. It must happen synchronously — the provider has to be in
 * place before the command records anything — hence `require`, which loads the very CommonJS build an
 * `import` of these packages loads.
 */
function loadSdk() {
  const require = createRequire(import.meta.url);
  const sdk = require('@opentelemetry/sdk-metrics') as typeof SdkMetrics;
  const otlp = require('@opentelemetry/exporter-metrics-otlp-http') as typeof OtlpHttpExporter;
  const resources = require('@opentelemetry/resources') as typeof Resources;
  return {
    MeterProvider: sdk.MeterProvider,
    PeriodicExportingMetricReader: sdk.PeriodicExportingMetricReader,
    OTLPMetricExporter: otlp.OTLPMetricExporter,
    defaultResource: resources.defaultResource,
    resourceFromAttributes: resources.resourceFromAttributes,
  };
}

/** ExportResultCode.SUCCESS of @opentelemetry/core, which fed does not depend on directly. */
const EXPORT_SUCCESS = 0;

/**
 * The exporter, telling `onFailure` about each failed export. The SDK only passes failures to the
 * OpenTelemetry diagnostic logger, which is silent unless configured, so without this a dead collector
 * would go unnoticed.
 */
function reportingFailures(exporter: PushMetricExporter, onFailure: ((error: Error) => void) | undefined): PushMetricExporter {
  return {
    export: (data, done) =>
      exporter.export(data, (result) => {
        if (result.code !== EXPORT_SUCCESS) onFailure?.(result.error ?? new Error('the collector did not accept the metrics'));
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter),
    selectAggregation: exporter.selectAggregation?.bind(exporter),
  };
}
