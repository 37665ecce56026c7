import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveHub, SseMessage } from '../live/live-hub.js';
import { SECURITY_HEADERS } from './security.js';

/**
 * How much a stream may hold unsent before its browser is dropped: one that stopped reading (a frozen
 * tab, a stalled network) would otherwise buffer every change without bound. It reconnects with
 * Last-Event-ID and is sent what it missed, or a reset.
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * `GET /events`: the live hub's stream as Server-Sent Events, resumed after the `Last-Event-ID` a
 * reconnecting browser sends. Every open stream is kept in `open`, so closing the server ends them all.
 */
export function serveEvents(
  hub: LiveHub,
  request: IncomingMessage,
  response: ServerResponse,
  open: Set<ServerResponse>,
): void {
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // A proxy in front must not hold events back.
    'X-Accel-Buffering': 'no',
  });
  if (request.method === 'HEAD') return void response.end();
  // The browser retries after this long when the stream breaks (EventSource's default is 3 s).
  response.write('retry: 1000\n\n');
  const lastEventId = request.headers['last-event-id'];
  const unsubscribe = hub.subscribe(Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, (message) => {
    if (response.writableEnded || response.destroyed) throw new Error('the stream is closed');
    response.write(frame(message));
    if (response.writableLength > MAX_UNSENT_BYTES) {
      response.destroy();
      throw new Error(`the browser stopped reading: over ${MAX_UNSENT_BYTES} bytes unsent`);
    }
  });
  open.add(response);
  const end = () => {
    unsubscribe();
    open.delete(response);
  };
  response.once('close', end);
}

/** One event in the text/event-stream format; `data` is one line of JSON (or empty), never multi-line. */
export function frame(message: SseMessage): string {
  return `${message.id !== undefined ? `id: ${message.id}\n` : ''}event: ${message.event}\ndata: ${message.data}\n\n`;
}
