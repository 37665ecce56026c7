import type { SignalBox } from './signal.js';
import { parseJsonText, withoutByteOrderMark } from '../json-text.js';
import { zodProblemText } from './problems.js';
import {
  isWellFormedAck,
  isWellFormedSignal,
  SIGNAL_PROTOCOL,
  signalAckSchema,
  signalMessageSchema,
  type SignalAck,
  type SignalMessage,
} from './signal.js';

/**
 * Judging the bytes of one signal or acknowledgment against file-signal-v1, wherever they are stored (a
 * box file, a JetStream message). Every way they can be unusable ends in a reason a person can act on —
 * never an exception — so one bad record cannot hide the others (docs/design/invariants.md #4).
 */

/** `incomplete`: the bytes are empty or not (yet) JSON — what a file still being written looks like. */
export type Judged<T> = { ok: true; value: T } | { ok: false; reason: string; incomplete?: boolean };

/** What the box a file sits in expects of it: an inbox holds signals `to` its owner, an outbox signals `from` it. */
export interface BoxExpectation {
  owner: string;
  box: SignalBox;
}

function parseJson(bytes: Buffer): Judged<unknown> {
  // Editors on some systems prepend a byte-order mark; it is not part of the JSON.
  const text = withoutByteOrderMark(bytes.toString('utf8'));
  const json = parseJsonText(text);
  if (json.ok) return json;
  // Told apart only once the parse failed: a box of valid files never pays for the check.
  if (text.trim() === '') return { ok: false, reason: 'the file is empty (only whitespace)', incomplete: true };
  return {
    ok: false,
    reason: `not valid JSON at line ${json.line}, column ${json.column} (${json.message})`,
    incomplete: true,
  };
}

export function judgeSignal(bytes: Buffer, expect: BoxExpectation): Judged<SignalMessage> {
  const json = parseJson(bytes);
  if (!json.ok) return json;
  let message: SignalMessage;
  // The quick check passes every well-formed signal; the schema judges the rest and says what is wrong.
  if (isWellFormedSignal(json.value)) message = json.value;
  else {
    const parsed = signalMessageSchema.safeParse(json.value, { reportInput: true });
    if (!parsed.success) {
      return { ok: false, reason: `not a valid ${SIGNAL_PROTOCOL} signal: ${zodProblemText(parsed.error)}` };
    }
    message = parsed.data;
  }
  if (expect.box === 'inbox' && message.to !== expect.owner) {
    return { ok: false, reason: `addressed to "${message.to}", but this is the inbox of "${expect.owner}"` };
  }
  if (expect.box === 'outbox' && message.from !== expect.owner) {
    return { ok: false, reason: `sent by "${message.from}", but this is the outbox of "${expect.owner}"` };
  }
  return { ok: true, value: message };
}

export function judgeAck(bytes: Buffer): Judged<SignalAck> {
  const json = parseJson(bytes);
  if (!json.ok) return json;
  if (isWellFormedAck(json.value)) return { ok: true, value: json.value };
  const parsed = signalAckSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, reason: `not a valid acknowledgment: ${zodProblemText(parsed.error)}` };
  }
  return { ok: true, value: parsed.data };
}
