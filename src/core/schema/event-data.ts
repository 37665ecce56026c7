import { InvalidInputError } from '../errors.js';
import { MAX_SIGNAL_BYTES } from './signal.js';

/**
 * An agent's event is kept in its team's lifecycle and journal and shown by every status that names the
 * team (`fed team show`, meta's `fed_status`): its data is bounded as a signal is, so one report cannot
 * make each of those a megabytes-long answer. Large content belongs in a workspace file the data names.
 */
export const MAX_EVENT_DATA_BYTES = MAX_SIGNAL_BYTES;

/** Refuse an event whose data, as JSON, is over MAX_EVENT_DATA_BYTES, naming the limit and what to do. */
export function assertEventDataWithinLimit(event: { type: string; [key: string]: unknown }): void {
  const { type, ...data } = event;
  const bytes = Buffer.byteLength(JSON.stringify(data));
  if (bytes > MAX_EVENT_DATA_BYTES)
    throw new InvalidInputError(
      `event ${type}: its data is ${bytes} bytes as JSON, over the ${MAX_EVENT_DATA_BYTES}-byte limit of an event ` +
        "(a signal's); write large content to a file in the workspace and name that file in the data",
    );
}
