import { z } from 'zod';
import { builtOnFirstUse } from './common.js';
import { isRecordOf } from './quick-check.js';

/**
 * What a sandboxed agent's `fed` asks its launcher's broker (the wire: src/infra/process/broker-protocol.ts,
 * which declares the same shapes as plain types, free of zod, for the `fed` bin that loads it first): the
 * JSON of a REQUEST frame — its token, fed's arguments, its working directory, whether stdin follows — and
 * of an EVENT frame — its token, the event's type and its fields. Anyone who reaches the socket can send
 * anything: what does not parse is a malformed request. Other keys are ignored.
 */
export const brokerRequestSchema = builtOnFirstUse(() =>
  z.object({ token: z.string(), argv: z.array(z.string()), cwd: z.string(), stdin: z.boolean() }),
);

export const brokerEventRequestSchema = builtOnFirstUse(() =>
  z.object({
    token: z.string(),
    type: z.string(),
    // A JSON object, passed on as sent, as `fed event --data` passes it: zod's copy of a record would drop
    // an own `__proto__` key, which the event's schema refuses.
    data: z.custom<Record<string, unknown>>((value) => isRecordOf(value, () => true)),
  }),
);
