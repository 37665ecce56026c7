import { McpServer } from '@modelcontextprotocol/server';
import { packageVersion } from '../../infra/package-info.js';

/** The MCP revision without the handshake: each request names it (and its client) in its `_meta`. */
export const SESSIONLESS_REVISION = '2026-07-28';

/**
 * A federation's MCP server, named for who it serves (`fed` for a team, `fed-meta` for meta); its tools
 * are registered with registerFedTool (fed-tool.ts) and it is served with serveStdio (serve-stdio.ts).
 */
export function createFedServer(name: string, instructions: string): McpServer {
  return new McpServer({ name, version: packageVersion() }, { instructions });
}
