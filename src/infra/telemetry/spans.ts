import {
  context,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import { fedTracer } from './tracer.js';

/**
 * fed's spans, as the apps see them: started under a parent or as a root, given attributes and events,
 * ended with an error or not — and, for a process started inside one, its W3C trace context. Tracing
 * off (no TracerProvider) leaves every span a no-op without a trace id, and its child process without
 * a trace context.
 */
export interface FedSpan {
  /** The span's trace id (32 hex digits), or null when the span is not recorded (tracing is off). */
  readonly traceId: string | null;
  /**
   * The W3C trace context of the span for a child process (`TRACEPARENT`, and `TRACESTATE` when it has
   * one), so that the child's own spans join the trace under this one; empty when tracing is off.
   */
  traceContextEnv(): Record<string, string>;
  setAttributes(attributes: Attributes): void;
  addEvent(name: string, attributes: Attributes, at?: Date): void;
  /** End the span; with `error`, its `error.type` and an error status (once: later calls do nothing). */
  end(error?: { type: string; message: string | null }): void;
}

export interface StartSpanOptions {
  kind: 'client' | 'internal';
  attributes: Attributes;
  /** The span this one is a child of; a root span otherwise. */
  parent?: FedSpan;
}

/** Which API span each FedSpan wraps, for its children. */
const apiSpans = new WeakMap<FedSpan, Span>();

export async function startSpan(name: string, options: StartSpanOptions): Promise<FedSpan> {
  const tracer = await fedTracer();
  const parentSpan = options.parent && apiSpans.get(options.parent);
  const parent = parentSpan ? trace.setSpan(context.active(), parentSpan) : context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: options.attributes },
    parent,
  );
  const spanContext = span.spanContext();
  const recorded = isSpanContextValid(spanContext);
  let ended = false;
  const fedSpan: FedSpan = {
    traceId: recorded ? spanContext.traceId : null,
    traceContextEnv() {
      if (!recorded) return {};
      const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
      const state = spanContext.traceState?.serialize();
      return {
        TRACEPARENT: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
        ...(state ? { TRACESTATE: state } : {}),
      };
    },
    setAttributes: (attributes) => span.setAttributes(attributes),
    addEvent: (eventName, attributes, at) => span.addEvent(eventName, attributes, at),
    end(error) {
      if (ended) return;
      ended = true;
      if (error) {
        span.setAttribute('error.type', error.type);
        span.setStatus({ code: SpanStatusCode.ERROR, ...(error.message ? { message: error.message } : {}) });
      }
      span.end();
    },
  };
  apiSpans.set(fedSpan, span);
  return fedSpan;
}
