import type { Readable, Writable } from 'node:stream';
import {
  classifyInboundRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type Transport,
  PROTOCOL_VERSION_META_KEY,
  UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/server';
import { SESSIONLESS_REVISION } from '../fed-server.js';
import { checkMessage, errorResponse, INVALID_REQUEST, PARSE_ERROR } from './json-rpc-check.js';
import { lineSplitter } from './line-splitter.js';

/**
 * The longest line read: a signal's 1 MiB body fits even with every character escaped (`\u0000` is six
 * bytes), and a line past it is answered with -32600 and skipped rather than held in memory.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** The one MCP revision with JSON-RPC batches (2025-06-18 removed them again). */
export const BATCH_REVISION = '2025-03-26';

/**
 * How a connection is spoken, fixed by its first message that picks one, as the SDK's entry (serve-stdio.ts)
 * pins its server: `handshake` by `initialize` (2025-11-25 and the revisions before it), `sessionless` by a
 * request naming 2026-07-28 in its `_meta` (no handshake: each request names it).
 */
type Era = 'handshake' | 'sessionless';

interface Batch {
  /** The ids of the batch's requests not answered yet. */
  waiting: Set<RequestId>;
  answers: JSONRPCMessage[];
}

/**
 * MCP's stdio transport with JSON-RPC kept to the letter, in place of the SDK's (which drops what it
 * cannot parse unanswered and closes on a long line): every line gets its answer or its error —
 * -32700 for what is not JSON, -32600 for what is not a JSON-RPC message or is longer than
 * MAX_LINE_BYTES, -32602 for params the method does not take — and the server keeps serving. A batch is
 * executed when the agreed revision has batches and is one -32600 otherwise. The era is fixed by the first
 * message that picks one (see Era) and nothing after changes it: a request of the other era is refused
 * with what this connection speaks, and one refused (an `initialize` on a sessionless connection, a
 * malformed envelope) picks nothing. Before the era is picked a request naming no revision is refused, as
 * the revisions with the handshake require, but a ping, answered here, and a notification is dropped: the
 * SDK's entry would take either as the handshake era's first message, and they commit a client to nothing.
 */
export class StdioWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The revision `initialize` agreed, once the server answered it. */
  private revision: string | undefined;
  /**
   * The era, once a message picked it; `handshake` as soon as `initialize` is read: what follows it is
   * served (a client may send its next requests without waiting for the answer, written before theirs).
   */
  private era: Era | undefined;
  /** The ids of `initialize` requests under way: their result agrees the revision. */
  private readonly initializing = new Set<RequestId>();
  private readonly batches = new Map<RequestId, Batch>();
  private isClosed = false;
  private markClosed!: () => void;
  /** Settles when the wire closed (the client went away, or the server closed it). */
  readonly closed: Promise<void> = new Promise((resolve) => (this.markClosed = resolve));
  private readonly read = lineSplitter(MAX_LINE_BYTES, {
    line: (text) => this.receive(text),
    oversize: (max) =>
      this.write(
        errorResponse(
          null,
          INVALID_REQUEST,
          `invalid request: a line longer than ${max} bytes, skipped; send one message per line, and large content in a file the message names`,
        ),
      ),
  });

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  /** Reads until closed: the end of stdin is the caller's to handle (serve-stdio.ts lets the calls under way answer first). */
  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    // The client went away (EPIPE): nothing more can be answered.
    this.stdout.on('error', this.onStdoutError);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.markClosed();
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.stdout.off('error', this.onStdoutError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // An error response may have no id (one the server could not read): it answers no request of ours.
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
      const id = message.id;
      if (this.initializing.delete(id) && isJSONRPCResultResponse(message))
        this.revision = String(message.result.protocolVersion);
      const batch = this.batches.get(id);
      if (batch) return this.answerInBatch(batch, id, message);
    }
    await this.write(message);
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.read(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  private readonly onError = (error: Error) => this.onerror?.(error);
  private readonly onStdoutError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  private receive(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      void this.write(
        errorResponse(
          null,
          PARSE_ERROR,
          `parse error: not JSON (${(error as Error).message}); send one JSON message per line`,
        ),
      );
      return;
    }
    if (Array.isArray(value)) return this.receiveBatch(value);
    const answer = this.accept(value);
    if (answer) void this.write(answer);
  }

  /** Check one message and pass it on; what answers it at once when it may not be passed on. */
  private accept(value: unknown, inBatch = false): JSONRPCMessage | undefined {
    const checked = checkMessage(value);
    if ('drop' in checked) {
      this.onerror?.(new Error(`dropped: ${checked.drop}`));
      return undefined;
    }
    if ('answer' in checked) return checked.answer;
    const { message } = checked;
    if (isJSONRPCRequest(message)) {
      const answer = this.admit(message, inBatch);
      if (answer) return answer;
    } else if (isJSONRPCNotification(message) && !this.era) {
      // It has no answer, and the SDK's entry would take it as the handshake era's first message.
      this.onerror?.(new Error(`dropped: ${message.method}, a notification before the first request`));
      return undefined;
    }
    this.onmessage?.(message);
    return undefined;
  }

  /** What answers a request here (refused, or a ping before the era is picked); undefined: pass it on. */
  private admit(request: JSONRPCRequest, inBatch: boolean): JSONRPCMessage | undefined {
    const picks = eraPickedBy(request);
    if (picks === 'handshake') {
      if (inBatch)
        return errorResponse(request.id, INVALID_REQUEST, 'invalid request: initialize must not be part of a batch');
      // On a sessionless connection the SDK's entry refuses it (-32022, naming the revision served).
      if (this.era === 'sessionless') return undefined;
      this.initializing.add(request.id);
      this.era = 'handshake';
      return undefined;
    }
    if (namesRevision(request.params)) {
      // Served by the rules of the revision it names (the SDK's entry checks the rest of the envelope); a
      // connection pinned to one revision would otherwise answer a request naming another by its own.
      const named = revisionNamed(request.params);
      if (this.era === 'handshake')
        return errorResponse(
          request.id,
          INVALID_REQUEST,
          `invalid request: it names revision ${named}, but this connection opened with initialize; ` +
            `a ${SESSIONLESS_REVISION} client names it from its first request on, without initialize`,
        );
      if (named !== SESSIONLESS_REVISION) {
        const unsupported = new UnsupportedProtocolVersionError({
          supported: [SESSIONLESS_REVISION],
          requested: named,
        });
        return {
          jsonrpc: '2.0',
          id: request.id,
          error: { code: unsupported.code, message: unsupported.message, data: unsupported.data },
        };
      }
      // A malformed envelope is refused by the SDK's entry (-32602) and picks nothing.
      this.era ??= picks;
      return undefined;
    }
    if (this.era) return undefined;
    if (request.method === 'ping') return { jsonrpc: '2.0', id: request.id, result: {} };
    return errorResponse(
      request.id,
      INVALID_REQUEST,
      `invalid request: "${request.method}" before initialize; send initialize first (then ` +
        `notifications/initialized), or name the revision in each request's _meta["${PROTOCOL_VERSION_META_KEY}"] ` +
        `(${SESSIONLESS_REVISION})`,
    );
  }

  /** A batch: executed under the revision that has batches, answered as one array once all its requests are. */
  private receiveBatch(values: unknown[]): void {
    if (values.length === 0) {
      void this.write(errorResponse(null, INVALID_REQUEST, 'invalid request: an empty batch'));
      return;
    }
    if (this.revision !== BATCH_REVISION) {
      const agreed = this.revision
        ? `this connection agreed ${this.revision}`
        : this.era === 'sessionless'
          ? `this client speaks ${SESSIONLESS_REVISION}`
          : 'no revision is agreed yet';
      void this.write(
        errorResponse(
          null,
          INVALID_REQUEST,
          `invalid request: a batch; MCP has batches in revision ${BATCH_REVISION} only and ${agreed}: send one message per line`,
        ),
      );
      return;
    }
    const batch: Batch = { waiting: new Set(), answers: [] };
    const requests: { id: RequestId; value: unknown }[] = [];
    for (const value of values) {
      const checked = checkMessage(value);
      if ('message' in checked && isJSONRPCRequest(checked.message)) {
        const { id } = checked.message;
        if (batch.waiting.has(id) || this.batches.has(id)) {
          batch.answers.push(errorResponse(id, INVALID_REQUEST, `invalid request: id ${JSON.stringify(id)} is in use`));
          continue;
        }
        batch.waiting.add(id);
        requests.push({ id, value });
      } else {
        const answer = this.accept(value, true);
        if (answer) batch.answers.push(answer);
      }
    }
    for (const { id } of requests) this.batches.set(id, batch);
    for (const { id, value } of requests) {
      const answer = this.accept(value, true);
      if (answer) this.answerInBatch(batch, id, answer);
    }
    if (batch.waiting.size === 0 && requests.length === 0 && batch.answers.length > 0) void this.write(batch.answers);
  }

  private answerInBatch(batch: Batch, id: RequestId, answer: JSONRPCMessage): Promise<void> {
    this.batches.delete(id);
    batch.waiting.delete(id);
    batch.answers.push(answer);
    return batch.waiting.size === 0 ? this.write(batch.answers) : Promise.resolve();
  }

  /** Write one line; settles when written or when stdout failed (which closes the wire: onStdoutError). */
  private write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    return new Promise((resolve) => {
      const line = `${JSON.stringify(message)}\n`;
      if (this.stdout.write(line)) return resolve();
      const done = () => {
        this.stdout.off('drain', done);
        this.stdout.off('error', done);
        resolve();
      };
      this.stdout.once('drain', done);
      this.stdout.once('error', done);
    });
  }
}

/** The era a request picks when it is a connection's first, by the SDK's own rule; undefined when none. */
function eraPickedBy(message: JSONRPCRequest): Era | undefined {
  const route = classifyInboundRequest({ httpMethod: 'POST', body: message });
  if (route.kind === 'legacy') return route.reason === 'initialize' ? 'handshake' : undefined;
  if (route.kind === 'modern' && route.classification.revision === SESSIONLESS_REVISION) return 'sessionless';
  return undefined;
}

/** Whether a request's params name its revision in `_meta` (2026-07-28's per-request envelope). */
function namesRevision(params: unknown): boolean {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

function revisionNamed(params: unknown): string {
  return String((params as { _meta: Record<string, unknown> })._meta[PROTOCOL_VERSION_META_KEY]);
}
