import { metrics, type Meter, type MeterProvider } from '@opentelemetry/api';
import { packageVersion } from '../package-info.js';

/** The instrumentation scope of every fed metric. */
export const METER_NAME = 'fed';

/**
 * Instruments for the MeterProvider that is global when they are first used, made again when it changes.
 * An instrument made before a provider is registered stays a no-op forever (docs/design/invariants.md, measured facts), and the CLI
 * registers its provider only once it has read the config — long after modules are loaded — so no module
 * may make its instruments at load time: it wraps their creation in this and calls the result per record.
 */
export function lazyInstruments<T>(make: (meter: Meter) => T): () => T {
  const byProvider = new WeakMap<MeterProvider, T>();
  return () => {
    const provider = metrics.getMeterProvider();
    let made = byProvider.get(provider);
    if (made === undefined) {
      made = make(provider.getMeter(METER_NAME, packageVersion()));
      byProvider.set(provider, made);
    }
    return made;
  };
}
