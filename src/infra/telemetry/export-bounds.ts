import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The time limits every OTLP export of the CLI shares (metrics and traces): a command would rather drop
 * one export than stall on a dead collector. A module of its own, free of the SDK, so each exporter loads
 * only its own SDK.
 */

/**
 * How long one export may take, retries included. Below the exporter's first retry delay (0.8–1.2 s), so
 * a refused connection fails at once instead of waiting to be refused again.
 */
export const EXPORT_TIMEOUT_MS = 700;
/** Slack for the reader or span processor over the exporter's own timeout, so the exporter's failure (and its error) wins. */
export const PROCESSOR_SLACK_MS = 500;

/** ExportResultCode.SUCCESS of @opentelemetry/core, which fed does not depend on directly. */
export const EXPORT_SUCCESS = 0;

/** What became of one export: sent, or failed with the error the exporter gave. */
export type ExportOutcome = { ok: true } | { ok: false; error: Error };

/** The outcome of one export, from the exporter's result (`what` names the data in the fallback error). */
export function exportOutcome(result: { code: number; error?: Error }, what: string): ExportOutcome {
  return result.code === EXPORT_SUCCESS
    ? { ok: true }
    : { ok: false, error: result.error ?? new Error(`the collector did not accept the ${what}`) };
}

/**
 * Shut a provider down (it sends what it holds first), in bounded time and never throwing: the provider
 * bounds its own flush; the race only guards against a flush that never settles. A failed final export
 * was already reported through the exporter's outcome.
 */
export async function shutDownWithin(shutdown: () => Promise<void>): Promise<void> {
  try {
    await Promise.race([shutdown(), sleep(EXPORT_TIMEOUT_MS + 2 * PROCESSOR_SLACK_MS, undefined, { ref: false })]);
  } catch {
    // Reported already: see above.
  }
}
