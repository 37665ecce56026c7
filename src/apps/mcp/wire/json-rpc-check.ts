import { ClientNotificationSchema, ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCErrorResponse, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { describeValue, zodProblemText } from '../../../core/schema/problems.js';

/** The JSON-RPC 2.0 error codes fed's MCP layer answers itself (the SDK answers -32601 and the rest). */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/**
 * How deep a message may nest: far more than any tool's arguments need, and shallow enough that no
 * validator recurses out of its stack on it (100,000 levels did, answering -32603).
 */
export const MAX_MESSAGE_DEPTH = 64;

/** A message as fed passes it on, the error that answers it, or why it is dropped (a notification is never answered). */
export type Checked = { message: JSONRPCMessage } | { answer: JSONRPCErrorResponse } | { drop: string };

export function errorResponse(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // JSON-RPC answers a message whose id cannot be read with id null; the SDK's type has no null.
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message } };
}

const SHAPE =
  'a JSON-RPC 2.0 message is an object with "jsonrpc": "2.0" and either a "method" (with an "id": a request; ' +
  'without: a notification) or an "id" with a "result" or an "error" (a response)';

/**
 * Check one parsed message before the SDK sees it, so that everything wrong with it gets its JSON-RPC
 * error, naming what is wrong, instead of being dropped unanswered (the SDK's stdio layer answers nothing
 * it cannot parse, and a validator's failure on params as -32603 with its raw dump).
 */
export function checkMessage(value: unknown): Checked {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return invalid(null, `expected an object, got ${describeValue(value)}: ${SHAPE}`);
  const message = value as Record<string, unknown>;
  const id = isRequestId(message.id) ? message.id : null;
  if (message.jsonrpc !== '2.0')
    return invalid(id, `"jsonrpc" must be "2.0", got ${describeValue(message.jsonrpc)}: ${SHAPE}`);
  if ('method' in message) {
    if (typeof message.method !== 'string' || message.method === '')
      return invalid(id, `"method" must be a non-empty string, got ${describeValue(message.method)}`);
    if ('id' in message && id === null)
      return invalid(
        null,
        `"id" must be a string or a number, got ${describeValue(message.id)} (a notification has no "id" at all)`,
      );
  } else if (id === null) {
    return invalid(null, `no "method" and no valid "id" (got ${describeValue(message.id)}): ${SHAPE}`);
  } else if (!('result' in message) && !('error' in message)) {
    return invalid(id, `a response needs a "result" or an "error": ${SHAPE}`);
  }
  const isRequest = 'method' in message && id !== null;
  const isNotification = 'method' in message && id === null;
  if (depthOver(message.params ?? message.result ?? message.error, MAX_MESSAGE_DEPTH)) {
    const what = `nested deeper than ${MAX_MESSAGE_DEPTH} levels`;
    if (isRequest) return { answer: errorResponse(id, INVALID_PARAMS, `invalid params: ${what}`) };
    return isNotification ? { drop: `notification ${what}` } : { drop: `response ${what}` };
  }
  if (
    'params' in message &&
    (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))
  ) {
    const what = `"params" must be an object, got ${describeValue(message.params)}`;
    if (isRequest) return { answer: errorResponse(id, INVALID_PARAMS, `invalid params: ${what}`) };
    return { drop: `notification ${String(message.method)}: ${what}` };
  }
  // The SDK's own definition of a message, so nothing passed on is one it would drop unanswered.
  const parsed = JSONRPCMessageSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) return invalid(id, `not a JSON-RPC 2.0 message: ${zodProblemText(parsed.error)}`);
  if (isRequest || isNotification) {
    const schema = (isRequest ? REQUEST_SCHEMAS : NOTIFICATION_SCHEMAS).get(message.method as string);
    const known = schema?.safeParse(value, { reportInput: true });
    if (known && !known.success) {
      const what = `invalid params for "${String(message.method)}": ${zodProblemText(known.error)}`;
      if (isRequest) return { answer: errorResponse(id, INVALID_PARAMS, what) };
      return { drop: what };
    }
  }
  return { message: parsed.data };
}

function invalid(id: RequestId | null, text: string): Checked {
  return { answer: errorResponse(id, INVALID_REQUEST, `invalid request: ${text}`) };
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** Whether `value` nests deeper than `limit` (counted without recursion: the point is a value too deep for it). */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The MCP methods a client sends, each with the SDK's schema of its message (what its handler parses with). */
function schemasByMethod(union: z.ZodUnion): Map<string, z.ZodType> {
  const options = union.options as unknown as z.ZodObject[];
  return new Map(options.map((option) => [(option.shape.method as z.ZodLiteral<string>).value, option]));
}
const REQUEST_SCHEMAS = schemasByMethod(ClientRequestSchema as unknown as z.ZodUnion);
const NOTIFICATION_SCHEMAS = schemasByMethod(ClientNotificationSchema as unknown as z.ZodUnion);
