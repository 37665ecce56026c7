import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { packageVersion } from '../../infra/package-info.js';

/**
 * A federation's MCP server, named for who it serves (`fed` for a team, `fed-meta` for meta); its tools
 * are registered with registerFedTool (fed-tool.ts) and it is served with serveStdio (serve-stdio.ts).
 */
export function createFedServer(name: string, instructions: string): McpServer {
  return new McpServer({ name, version: packageVersion() }, { instructions });
}
