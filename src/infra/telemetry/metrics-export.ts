import { metrics } from '@opentelemetry/api';
import { FedError } from '../../core/errors.js';
import { DeferredMeterProvider } from './deferred-meter-provider.js';
import type { ExportOutcome, OtlpExport } from './otlp-export.js';
import { otlpSignalUrl } from './otlp-url.js';

export type { ExportOutcome } from './otlp-export.js';

/**
 * Exporting fed's metrics over OTLP/HTTP (JSON), for a process that wants its metrics sent (the CLI).
 * Library code records through the API alone and never needs this.
 */
export const OTLP_METRICS_PATH = '/v1/metrics' as const;

/** Metrics go to `<base>/v1/metrics` of the collector (otlp-url.ts). */
export function otlpMetricsUrl(endpoint: string): string {
  return otlpSignalUrl(endpoint, OTLP_METRICS_PATH);
}

export interface MetricsExportOptions {
  /** Collector base URL (see otlpMetricsUrl). */
  endpoint: string;
  /** Told about every export: sent, or failed (the metrics of a failed export are dropped). */
  onExport?: (outcome: ExportOutcome) => void;
}

export interface MetricsExport {
  /** Where metrics are sent. */
  url: string;
  /** Send what was recorded since the last export and stop, in bounded time; never throws. */
  shutdown(): Promise<void>;
}

/**
 * Register a global MeterProvider that sends fed's metrics to an OTLP/HTTP collector. Instruments made
 * lazily (telemetry/meter.ts) record into it at once; the SDK itself is loaded only when the first metric
 * is recorded, so a process that records none never pays for it. A second registration in one process is
 * refused: the OpenTelemetry API keeps the first provider.
 */
export function startMetricsExport(options: MetricsExportOptions): MetricsExport {
  const url = otlpMetricsUrl(options.endpoint);
  let loading: Promise<OtlpExport | undefined> | undefined;
  const deferred = new DeferredMeterProvider(() => {
    loading = import('./otlp-export.js').then(
      ({ createOtlpExport }) => {
        const otlp = createOtlpExport(url, (outcome) => options.onExport?.(outcome));
        deferred.attach(otlp.provider);
        return otlp;
      },
      (error: unknown) => {
        options.onExport?.({ ok: false, error: error instanceof Error ? error : new Error(String(error)) });
        return undefined;
      },
    );
  });
  if (!metrics.setGlobalMeterProvider(deferred)) {
    throw new FedError(
      'TELEMETRY_REGISTERED',
      'a global OpenTelemetry MeterProvider is already registered in this process; fed records into it',
      { refusal: false },
    );
  }
  return {
    url,
    async shutdown() {
      try {
        await (await loading)?.shutdown();
      } finally {
        metrics.disable();
      }
    },
  };
}
