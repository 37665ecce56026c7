import { PassThrough } from 'node:stream';
import { onTestFinished } from 'vitest';
import { serveStdio, type TeamServer } from 'fed/testing';
import { waitFor } from './fixture-process.js';

/** What a raw client reads: each line the server wrote, parsed (a line that is no JSON fails the test). */
export type Answer = Record<string, unknown> | Record<string, unknown>[];

/**
 * The server `create` makes (and any more the SDK's entry asks for: a 2026-07-28 discovery probe) served
 * over a pair of streams exactly as on stdin/stdout, driven with raw lines as a client writes them: `send`
 * writes text as it is (a newline added), `answer` waits for the server's line that `match` picks, `lines`
 * is everything it wrote so far.
 */
export function rawMcp(create: () => Promise<TeamServer>) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Answer[] = [];
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const part of parts) lines.push(JSON.parse(part) as Answer);
  });
  const stop = new AbortController();
  const served = serveStdio(create, { stdin, stdout }, stop.signal);
  onTestFinished(async () => {
    stop.abort();
    await served;
  });
  const send = (text: string | Buffer) => void stdin.write(typeof text === 'string' ? `${text}\n` : text);
  const request = (id: number | string, method: string, params?: Record<string, unknown>) =>
    send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
  /** The answer (a response object, or a batch's array) that `match` picks, once written. */
  async function answer(match: (line: Answer) => boolean): Promise<Answer> {
    await waitFor(() => lines.some(match), 5000, 'the server to answer');
    return lines.find(match)!;
  }
  /** The response to the request with `id`. */
  const response = (id: unknown) =>
    answer((line) => !Array.isArray(line) && line.id === id) as Promise<Record<string, unknown>>;
  /** The handshake, as a client of `revision` does it. */
  async function initialize(revision = '2025-11-25') {
    request('init', 'initialize', {
      protocolVersion: revision,
      capabilities: {},
      clientInfo: { name: 'raw-probe', version: '1' },
    });
    const result = await response('init');
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return result;
  }
  return { send, request, answer, response, initialize, lines, stdin };
}
