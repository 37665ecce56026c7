import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Federation } from '../../engine/context.js';
import { packageVersion } from '../../infra/package-info.js';
import { teamToolContext } from './team-tools.js';
import { registerWhoami } from './tools/whoami.js';

/** A federation's MCP server, named for who it serves (`fed` for a team, `fed-meta` for meta). */
export function createFedServer(name: string, instructions: string): McpServer {
  return new McpServer({ name, version: packageVersion() }, { instructions });
}

export interface TeamServer {
  server: McpServer;
  /** Stop what the server runs besides the transport (the inbox watch); the caller closes the transport. */
  close(): void;
}

/** `fed mcp`: the server a team's agent gets — its tools act as this team only. */
export function createTeamServer(fed: Federation, teamId: string): TeamServer {
  const server = createFedServer(
    'fed',
    `fed's tools for team "${teamId}": fed_whoami says your state, mission and the events you can report now.`,
  );
  const context = teamToolContext(fed, teamId);
  registerWhoami(server, context);
  return { server, close: () => undefined };
}
