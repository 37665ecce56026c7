import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString } from './common.js';

/**
 * `<workspace>/.fed/launch/refused-completion.json`: the agent's last completion event that fed's checks
 * refused while a launch ran (written by the refusing `fed event`, cleared when a launch starts). After the
 * agent exits, the launcher reads it: a completion that was refused and never accepted is the run's outcome
 * `rejected`, with these violations — handed back to the agent to fix, up to `agent.fixAttempts` times.
 */
export const COMPLETION_REFUSAL_FILE = 'refused-completion.json';

export const completionRefusalSchema = builtOnFirstUse(() =>
  z.strictObject({
    /** The refused event (e.g. `DOCUMENT_WRITTEN`). */
    event: nonEmptyString,
    /** Why, in one line: what the team fails with when it is not fixed. */
    reason: nonEmptyString,
    /** What the agent is to fix, one item each (the deliverable's violations); empty when the reason says it all. */
    violations: z.array(z.string()),
    /**
     * Whether the agent can fix it and send the event again (a deliverable that misses the standards);
     * otherwise the team failed at once (the read-only codebase was modified).
     */
    fixable: z.boolean(),
    refusedAt: isoTimestamp,
  }),
);
export type CompletionRefusal = z.infer<typeof completionRefusalSchema>;
