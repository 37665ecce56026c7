import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toolCallsSettled } from './fed-tool.js';
import { StdioWire } from './wire/stdio-wire.js';

/**
 * Serve `server` over stdin/stdout (fed's own JSON-RPC layer, wire/stdio-wire.ts) until stdin ends (the client closed it) or `stop` aborts. The tool
 * calls under way finish and are answered before the transport closes, so stopping leaves nothing
 * half-done (a request that arrived just before the end included).
 */
export async function serveStdio(
  server: McpServer,
  streams: { stdin: Readable; stdout: Writable },
  stop?: AbortSignal,
): Promise<void> {
  const transport = new StdioWire(streams.stdin, streams.stdout);
  const ended = new Promise<void>((resolve) => {
    streams.stdin.once('end', resolve);
    streams.stdin.once('close', resolve);
    stop?.addEventListener('abort', () => resolve(), { once: true });
    transport.onclose = resolve;
  });
  await server.connect(transport);
  if (stop?.aborted) return server.close();
  await ended;
  // The last requests read are dispatched asynchronously: let them start, then finish.
  await new Promise((resolve) => setImmediate(resolve));
  await toolCallsSettled(server);
  // The SDK writes a call's answer in a promise callback after the call settles: let those run before the
  // transport closes, or the last answers are dropped.
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
}
