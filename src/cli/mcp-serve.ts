import { serveStdio } from '../apps/mcp/serve-stdio.js';
import type { TeamServer } from '../apps/mcp/team-server.js';
import { Interrupt } from './interrupt.js';
import { stdoutStream } from './stdout.js';

/**
 * Serve an MCP server (a team's or meta's) on this process's stdin/stdout until stdin closes — or SIGTERM
 * or Ctrl-C, which end it between requests the same way — then close what it watches.
 */
export async function serveUntilClosed(create: () => Promise<TeamServer>): Promise<void> {
  const interrupt = new Interrupt();
  try {
    await serveStdio(create, { stdin: process.stdin, stdout: stdoutStream() }, interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}
