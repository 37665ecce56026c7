import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import {
  EXPORT_TIMEOUT_MS,
  exportOutcome,
  PROCESSOR_SLACK_MS,
  shutDownWithin,
  type ExportOutcome,
} from './export-bounds.js';
import { fedResource } from './fed-resource.js';

/**
 * The SDK side of the trace export: a TracerProvider whose batch processor sends OTLP/HTTP (JSON — the
 * exporter's own encoding, as for the metrics) to a collector. Only trace-export.ts loads this module,
 * and only once a span is about to start.
 */

/** How long an ended span waits for company before it is sent; the rest goes at shutdown. */
const EXPORT_DELAY_MS = 5_000;

export interface OtlpTraceExport {
  provider: TracerProvider;
  /** Send the spans ended so far and stop, in bounded time; never throws. */
  shutdown(): Promise<void>;
}

export function createOtlpTraceExport(url: string, onExport: (outcome: ExportOutcome) => void): OtlpTraceExport {
  const exporter = reporting(new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), onExport);
  const processor = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: EXPORT_DELAY_MS,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS + PROCESSOR_SLACK_MS,
  });
  const provider = new TracerProvider({ resource: fedResource(), spanProcessors: [processor] });
  return { provider, shutdown: () => shutDownWithin(() => provider.shutdown()) };
}

/** The exporter, telling `onExport` about each export (the SDK itself only tells its silent diagnostic logger). */
function reporting(exporter: SpanExporter, onExport: (outcome: ExportOutcome) => void): SpanExporter {
  return {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        onExport(exportOutcome(result, 'spans'));
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
