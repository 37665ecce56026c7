import {
  createNoopMeter,
  type Attributes,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MeterOptions,
  type MeterProvider,
} from '@opentelemetry/api';

/**
 * A MeterProvider that stands in for the real one until it is needed. The OpenTelemetry SDK and exporter
 * cost a command start-up more than the rest of fed, and most commands record no metric at all; so the
 * CLI registers this instead, and only the first measurement asks for the real provider (`onFirstUse`).
 * Measurements made before it is attached are kept in order and replayed into it — none is lost, and a
 * command that records nothing never loads the SDK.
 *
 * fed's instruments are counters, gauges and histograms (telemetry/fed-metrics.ts); other kinds are no-ops here.
 */
export class DeferredMeterProvider implements MeterProvider {
  private target: MeterProvider | undefined;
  private readonly replays: ((provider: MeterProvider) => void)[] = [];
  private asked = false;

  constructor(private readonly onFirstUse: () => void) {}

  /** Whether anything was recorded (and so the real provider was asked for). */
  get used(): boolean {
    return this.asked;
  }

  getMeter(name: string, version?: string, options?: MeterOptions): Meter {
    const real = () => this.target!.getMeter(name, version, options);
    // The API's no-op meter is one shared object: this meter inherits its other methods, never changes it.
    const meter = Object.create(createNoopMeter()) as Meter;
    meter.createCounter = (metric, metricOptions) =>
      this.instrument(
        () => real().createCounter(metric, metricOptions),
        (c: Counter, v, a) => c.add(v, a),
      ) as Counter;
    meter.createGauge = (metric, metricOptions) =>
      this.instrument(
        () => real().createGauge(metric, metricOptions),
        (g: Gauge, v, a) => g.record(v, a),
      ) as Gauge;
    meter.createHistogram = (metric, metricOptions) =>
      this.instrument(
        () => real().createHistogram(metric, metricOptions),
        (h: Histogram, v, a) => h.record(v, a),
      ) as Histogram;
    return meter;
  }

  /** Switch to the real provider: what was recorded so far goes into it first, in order. */
  attach(provider: MeterProvider): void {
    this.target = provider;
    for (const replay of this.replays.splice(0)) replay(provider);
  }

  private instrument<I>(
    make: () => I,
    apply: (instrument: I, value: number, attributes?: Attributes) => void,
  ): Counter & Gauge & Histogram {
    let made: I | undefined;
    const record = (value: number, attributes?: Attributes) => {
      if (this.target !== undefined) {
        made ??= make();
        apply(made, value, attributes);
        return;
      }
      this.replays.push(() => record(value, attributes));
      if (!this.asked) {
        this.asked = true;
        this.onFirstUse();
      }
    };
    return { add: record, record } as Counter & Gauge & Histogram;
  }
}
