import type { Readable, Writable } from 'node:stream';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { toolCallsSettled } from './fed-tool.js';
import type { TeamServer } from './team-server.js';
import { StdioWire } from './wire/stdio-wire.js';

/**
 * Serve MCP over stdin/stdout until stdin ends (the client closed it) or `stop` aborts, in either
 * protocol era: the SDK's entry picks it from the client's first message (`initialize`: 2025-11-25 and
 * the revisions before it; a request naming 2026-07-28 in its `_meta`: that revision) and takes a server
 * `create` makes for it, over fed's own JSON-RPC layer (wire/stdio-wire.ts). The first is made before
 * anything is read, so what keeps it from starting (an inbox fed may not watch) fails the command at
 * once. The tool calls under way finish and are answered before it closes, so stopping leaves nothing
 * half-done (a request that arrived just before the end included).
 */
export async function serveStdio(
  create: () => Promise<TeamServer>,
  streams: { stdin: Readable; stdout: Writable },
  stop?: AbortSignal,
): Promise<void> {
  const wire = new StdioWire(streams.stdin, streams.stdout);
  // Every server made (a probe the client's discovery asked for and the era's own): each is closed at the end.
  let first: TeamServer | undefined = await create();
  const made: TeamServer[] = [first];
  const ended = new Promise<void>((resolve) => {
    streams.stdin.once('end', resolve);
    streams.stdin.once('close', resolve);
    stop?.addEventListener('abort', () => resolve(), { once: true });
    void wire.closed.then(resolve);
  });
  const served = serveEras(
    async () => {
      if (first) {
        const server = first.server;
        first = undefined;
        return server;
      }
      const server = await create();
      made.push(server);
      return server.server;
    },
    // What the SDK's entry reports is an unanswerable message (a stray response): fed's layer answered the rest.
    { transport: wire, onerror: () => undefined },
  );
  try {
    if (!stop?.aborted) await ended;
    // The last requests read are dispatched asynchronously: let them start, then finish.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(made.map((server) => toolCallsSettled(server.server)));
    // The SDK writes a call's answer in a promise callback after the call settles: let those run before the
    // transport closes, or the last answers are dropped.
    await new Promise((resolve) => setImmediate(resolve));
    await served.close();
  } finally {
    for (const server of made) server.close();
  }
}
