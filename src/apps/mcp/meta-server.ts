import { META } from '../../core/schema/common.js';
import type { Federation } from '../../engine/context.js';
import { watchInboxNews } from './inbox-news.js';
import { registerNeedsYouTool } from './meta/needs-you-tool.js';
import { registerReviewTool } from './meta/review-tool.js';
import { registerSignalTools } from './meta/signal-tools.js';
import { registerStatusTools } from './meta/status-tools.js';
import { registerTeamControlTool } from './meta/team-control-tool.js';
import { createFedServer } from './fed-server.js';
import type { TeamServer } from './team-server.js';

const INSTRUCTIONS =
  "fed's tools for meta, the federation's coordinator, run by a person: fed_status for every team, " +
  'fed_needs_you for what waits on you (each item names the tool call that resolves it), fed_inbox and ' +
  "fed_ack for meta's inbox, fed_send to direct a team or answer its question (replyTo), fed_review for a " +
  "coding team's change, fed_team_control to pause, resume or retry a team. Every call acts as meta, with " +
  "the fed CLI's checks: a refusal is a tool error with fed's message. A signal that arrives for meta is " +
  'announced (fed://inbox is updated, and the next result says "new signals: N").';

/**
 * `fed mcp --meta`: meta's side of the federation for a person's own MCP client (Claude Desktop and the
 * like). Each tool calls the operation its `fed` command calls, as meta: the same refusals, journal and
 * delivery facts as the CLI at the federation root. Meta's inbox is watched for news as a team's is.
 */
export async function createMetaServer(fed: Federation): Promise<TeamServer> {
  const server = createFedServer('fed-meta', INSTRUCTIONS);
  // A person's sends, for as long as the server runs, check a watched registry.
  fed.watchRegistry();
  registerStatusTools(server, fed);
  registerNeedsYouTool(server, fed);
  // Meta has no registry entry; the inbox watch needs only the party whose inbox it watches.
  const news = await watchInboxNews(server, { fed, teamId: META, team: () => fed.team(META) });
  registerSignalTools(server, fed, news.seen);
  registerReviewTool(server, fed);
  registerTeamControlTool(server, fed);
  return { server, close: news.close };
}
