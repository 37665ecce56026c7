import { trace, type Tracer } from '@opentelemetry/api';
import { packageVersion } from '../package-info.js';
import { METER_NAME } from './meter.js';

/**
 * fed's tracer, through the OpenTelemetry API only: without a registered TracerProvider every span is a
 * non-recording no-op (its context invalid), which is how tracing is off. A process that exports traces
 * (the CLI, telemetry/trace-export.ts) does not register its provider up front — the SDK would cost every
 * command its start-up — but says how to load it (`deferTracerProvider`); the first `fedTracer()` loads it.
 * Spans start where the launch already awaits, so this asynchronous first use costs nothing.
 */
let pending: (() => Promise<void>) | undefined;
let loading: Promise<void> | undefined;

/** Register how to load the process's TracerProvider, loaded (once) on the first `fedTracer()`; undefined forgets it. */
export function deferTracerProvider(load: (() => Promise<void>) | undefined): void {
  pending = load;
  loading = undefined;
}

/** The tracer of the global TracerProvider, once a deferred one is loaded (a load that fails leaves tracing off). */
export async function fedTracer(): Promise<Tracer> {
  if (pending) {
    loading ??= pending().catch(() => undefined);
    await loading;
  }
  return trace.getTracer(METER_NAME, packageVersion());
}
