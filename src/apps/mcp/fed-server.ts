import { McpServer } from '@modelcontextprotocol/server';
import { packageVersion } from '../../infra/package-info.js';

/** The MCP era a server is made for: `legacy` (initialize, 2025-11-25 and before) or `modern` (2026-07-28). */
export type ProtocolEra = 'legacy' | 'modern';

/**
 * A federation's MCP server, named for who it serves (`fed` for a team, `fed-meta` for meta); its tools
 * are registered with registerFedTool (fed-tool.ts) and it is served with serveStdio (serve-stdio.ts).
 */
export function createFedServer(name: string, instructions: string): McpServer {
  return new McpServer({ name, version: packageVersion() }, { instructions });
}
