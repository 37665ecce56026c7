import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';

/**
 * `.fed/telemetry-collector.json`: what the CLI last learned about the collector its metrics go to. It
 * exists so a dead collector costs a federation one warning, not one per command: a warning is due only
 * when the collector's state changes (or the endpoint does), and `fed monitor` shows the state.
 */
export const COLLECTOR_STATE_FILE = 'telemetry-collector.json';

export const collectorStateSchema = builtOnFirstUse(() =>
  z.strictObject({
    /** Where metrics are sent (the OTLP/HTTP metrics URL). */
    url: nonEmptyString,
    reachable: z.boolean(),
    /** When the collector entered this state. */
    since: isoTimestamp,
    /** The last export's time. */
    checkedAt: isoTimestamp,
    /** Why the last export failed, when it did. */
    error: z.string().optional(),
  }),
);
export type CollectorState = z.infer<typeof collectorStateSchema>;
