import { z } from 'zod';

/**
 * What the team's `fed_inbox` and meta's inbox tool answer alike (their outputSchema): each signal as a
 * summary, and the inbox files that could not be read as signals. Each tool adds how it pages.
 */
export const inboxOutputFields = {
  signals: z.array(
    z.looseObject({
      id: z.string(),
      type: z.string(),
      from: z.string(),
      subject: z.string(),
      body: z.string(),
      timestamp: z.string(),
      state: z.string(),
    }),
  ),
  invalid: z.array(z.looseObject({ file: z.string(), reason: z.string() })),
};
