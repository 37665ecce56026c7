import { redactUrl } from '../../core/redact-url.js';
import { otlpMetricsUrl } from './metrics-export.js';

/** How long `fed init` waits for a collector to answer: one on this machine answers in milliseconds. */
const PROBE_TIMEOUT_MS = 1_000;

export interface CollectorProbe {
  /** The collector took an empty metrics export (OTLP/HTTP JSON) at `url`. */
  answers: boolean;
  /** The metrics URL tried, credentials hidden. */
  url: string;
}

/**
 * Whether an OTLP collector answers at `endpoint` — an export with no metrics, accepted (2xx) within a
 * second. Never throws: a refused connection, a timeout or another server is "no".
 */
export async function probeCollector(endpoint: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<CollectorProbe> {
  const url = otlpMetricsUrl(endpoint);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceMetrics: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return { answers: response.ok, url: redactUrl(url) };
  } catch {
    return { answers: false, url: redactUrl(url) };
  }
}
