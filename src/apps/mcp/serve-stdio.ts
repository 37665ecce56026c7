import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * Serve `server` over stdin/stdout until stdin ends (the client closed it) or `stop` aborts. A request
 * under way is answered before the transport closes: every write fed makes is its own atomic step, so
 * stopping between requests leaves nothing half-written.
 */
export async function serveStdio(
  server: McpServer,
  streams: { stdin: Readable; stdout: Writable },
  stop?: AbortSignal,
): Promise<void> {
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const ended = new Promise<void>((resolve) => {
    streams.stdin.once('end', resolve);
    streams.stdin.once('close', resolve);
    stop?.addEventListener('abort', () => resolve(), { once: true });
    transport.onclose = resolve;
  });
  await server.connect(transport);
  if (stop?.aborted) return server.close();
  await ended;
  await server.close();
}
