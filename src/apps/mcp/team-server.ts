import type { McpServer } from '@modelcontextprotocol/server';
import type { Federation } from '../../engine/context.js';
import { RefusedError } from '../../core/errors.js';
import { statusOf } from '../../core/find-team.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { createFedServer } from './fed-server.js';
import { watchInboxNews } from './inbox-news.js';
import { teamToolContext } from './team-tools.js';
import { registerAck } from './tools/ack.js';
import { registerEvent } from './tools/event.js';
import { registerInbox } from './tools/inbox.js';
import { registerSend } from './tools/send.js';
import { registerWhoami } from './tools/whoami.js';

export interface TeamServer {
  server: McpServer;
  /** Stop what the server runs besides the transport (the inbox watch); the caller closes the transport. */
  close(): void;
}

/**
 * `fed mcp`: the server a team's agent gets — its tools act as this team only — watching the team's
 * inbox for news (see inbox-news.ts) until closed. An archived team gets none: archiving is final, and
 * every tool but the readers would be refused, so the agent's client reports a server that did not start
 * (with this message) instead of tools that fail one by one. A team archived while its server runs is
 * told by fed_whoami.
 */
export async function createTeamServer(fed: Federation, team: RegistryEntry): Promise<TeamServer> {
  if (statusOf(team) === 'archived')
    throw new RefusedError(
      'TEAM_ARCHIVED',
      `team "${team.domainId}" is archived; archived teams get no agent tools, as they are not launched and ` +
        `neither send nor report events (read its history with: fed signal list --team ${team.domainId})`,
    );
  const server = createFedServer(
    'fed',
    `fed's tools for team "${team.domainId}": fed_whoami says your state, mission and the events you can report ` +
      'now; fed_inbox reads the signals sent to you (fed://inbox is updated when new ones arrive).',
  );
  // The agent's sends, for as long as it runs, check a watched registry.
  fed.watchRegistry();
  const context = teamToolContext(fed, team.domainId);
  registerWhoami(server, context);
  const news = await watchInboxNews(server, context);
  registerInbox(server, context, news.seen);
  registerAck(server, context);
  registerSend(server, context);
  registerEvent(server, context, team);
  return { server, close: news.close };
}
