import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import { listSignals } from '../../engine/messaging/list-signals.js';
import { watchSignals } from '../../engine/messaging/watch-signals.js';
import { setResultNotes } from './fed-tool.js';
import { SESSIONLESS_REVISION } from './fed-server.js';
import type { TeamToolContext } from './team-tools.js';

/** The team's inbox as an MCP resource: clients subscribe to it to be told when a signal arrives. */
export const INBOX_URI = 'fed://inbox';

export interface InboxNews {
  /** fed_inbox read the inbox: what arrived so far is no longer news. */
  seen(): void;
  /** Stop watching the inbox. Idempotent. */
  close(): void;
}

/**
 * Tell a running agent about signals that arrive for its team, without it polling: the `fed://inbox`
 * resource is updated (a notification to subscribed clients) and the next tool result carries a
 * "new signals: N" note. The inbox is watched through the backend's own watch (`fed signal watch`'s), so
 * it works for files and JetStream alike. Call before the server connects (it declares subscriptions).
 */
export async function watchInboxNews(server: McpServer, context: TeamToolContext): Promise<InboxNews> {
  const { fed, teamId } = context;
  server.registerResource(
    'inbox',
    INBOX_URI,
    {
      description: `the signals of team "${teamId}" not acknowledged yet (fed_inbox reads them and marks them read)`,
      mimeType: 'application/json',
    },
    async (uri) => {
      // Reading the resource only looks: nothing is marked read (fed_inbox does that).
      const listing = await listSignals(
        fed,
        { team: teamId, box: 'inbox', unacknowledged: true },
        { deadlines: fed.config.signalDeadlines },
      );
      const signals = listing.signals.map(({ message, delivery }) => ({
        id: message.id,
        type: message.type,
        from: message.from,
        subject: message.subject,
        timestamp: message.timestamp,
        state: delivery.state,
      }));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ signals }, null, 2) }],
      };
    },
  );
  const subscribed = new Set<string>();
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler('resources/subscribe', (request) => {
    // As resources/read: a resource this server does not have is refused, not subscribed to in vain.
    if (request.params.uri !== INBOX_URI)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `no resource "${request.params.uri}" to subscribe to: this server has ${INBOX_URI} (resources/list)`,
      );
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  let arrived = 0;
  let stopped: string | undefined;
  setResultNotes(server, () => {
    const notes = arrived > 0 ? [`new signals: ${arrived} (fed_inbox reads them)`] : [];
    if (stopped) notes.push(`fed stopped watching your inbox (${stopped}); call fed_inbox to check it`);
    arrived = 0;
    stopped = undefined;
    return notes;
  });

  const abort = new AbortController();
  const subscription = await watchSignals(fed, teamId, { signal: abort.signal, backlog: 'none' });
  void (async () => {
    try {
      for await (const entry of subscription) {
        if (entry.message.to !== teamId) continue;
        arrived++;
        // 2026-07-28 has no resources/subscribe: the SDK's entry sends the update to the client's
        // subscriptions/listen streams that asked for the resource, and to no one else.
        const sessionless = server.server.getNegotiatedProtocolVersion() === SESSIONLESS_REVISION;
        if ((sessionless || subscribed.has(INBOX_URI)) && server.isConnected())
          await server.server.sendResourceUpdated({ uri: INBOX_URI }).catch(() => undefined);
      }
    } catch (error) {
      stopped = (error as Error).message;
    }
  })();
  return {
    seen: () => {
      arrived = 0;
    },
    close: () => {
      abort.abort();
      subscription.close();
    },
  };
}
