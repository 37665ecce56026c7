import type { ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './security.js';

/** Every response goes out through these, so every one carries the security headers. */
export function reply(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Length': String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

export function replyText(response: ServerResponse, status: number, text: string): void {
  reply(response, status, text, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
}

/** An API answer: JSON, never cached (it is the federation as it is now). */
export function replyJson(response: ServerResponse, status: number, value: unknown): void {
  reply(response, status, JSON.stringify(value), {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
}
