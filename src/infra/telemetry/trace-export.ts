import { trace } from '@opentelemetry/api';
import type { ExportOutcome } from './export-bounds.js';
import type { OtlpTraceExport } from './otlp-trace-export.js';
import { otlpSignalUrl } from './otlp-url.js';
import { deferTracerProvider } from './tracer.js';

/**
 * Exporting fed's spans over OTLP/HTTP (JSON), beside the metrics (metrics-export.ts), for a process that
 * wants them sent (the CLI). Library code starts spans through the API alone (telemetry/tracer.ts).
 */
export const OTLP_TRACES_PATH = '/v1/traces' as const;

/** Spans go to `<base>/v1/traces` of the same collector as the metrics (otlp-url.ts). */
export function otlpTracesUrl(endpoint: string): string {
  return otlpSignalUrl(endpoint, OTLP_TRACES_PATH);
}

export interface TraceExportOptions {
  /** Collector base URL (see otlpTracesUrl). */
  endpoint: string;
  /** Told about every export: sent, or failed (the spans of a failed export are dropped). */
  onExport?: (outcome: ExportOutcome) => void;
}

export interface TraceExport {
  /** Where spans are sent. */
  url: string;
  /** Send the spans ended so far and stop, in bounded time; never throws. */
  shutdown(): Promise<void>;
}

/**
 * Make fed's spans go to an OTLP/HTTP collector. The SDK is loaded, and the TracerProvider registered
 * globally, only when the first span is about to start (telemetry/tracer.ts), so a command that starts
 * none never pays for it. A provider someone else registered first is kept: fed's spans go there.
 */
export function startTraceExport(options: TraceExportOptions): TraceExport {
  const url = otlpTracesUrl(options.endpoint);
  let loading: Promise<OtlpTraceExport | undefined> | undefined;
  deferTracerProvider(async () => {
    loading = import('./otlp-trace-export.js').then(
      async ({ createOtlpTraceExport }) => {
        const otlp = createOtlpTraceExport(url, (outcome) => options.onExport?.(outcome));
        if (trace.setGlobalTracerProvider(otlp.provider)) return otlp;
        await otlp.shutdown();
        return undefined;
      },
      (error: unknown) => {
        options.onExport?.({ ok: false, error: error instanceof Error ? error : new Error(String(error)) });
        return undefined;
      },
    );
    await loading;
  });
  return {
    url,
    async shutdown() {
      deferTracerProvider(undefined);
      const otlp = await loading;
      if (!otlp) return;
      try {
        await otlp.shutdown();
      } finally {
        trace.disable();
      }
    },
  };
}
