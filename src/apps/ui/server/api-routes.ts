import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidInputError } from '../../../core/errors.js';
import type { Federation } from '../../../engine/context.js';
import { runAction } from './actions.js';
import { federationView } from './federation-view.js';
import { replyJson } from './replies.js';
import { signalsView, signalThreadView } from './signal-views.js';
import { teamPageView, transcriptView } from './team-page.js';
import type { UiViews } from './ui-views.js';

/** The most a POST body may hold: an answer or the changes requested, never a file. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * The JSON routes past the board and the queue (api-types.ts lists them all). Returns false when `url`
 * names none of them, so the caller answers 404.
 */
export async function apiRoute(
  fed: Federation,
  views: UiViews,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  if (request.method === 'POST') {
    if (path !== '/api/actions') return false;
    const { result, team } = await runAction(fed, await readJsonBody(request));
    // What the action changed is read again at once; the change feed tells the same to every page.
    views.invalidateAfterAction(team);
    replyJson(response, 200, result);
    return true;
  }
  let match: RegExpExecArray | null;
  if ((match = /^\/api\/teams\/([^/]+)$/.exec(path)))
    replyJson(response, 200, await teamPageView(fed, views, decodeURIComponent(match[1]!)));
  else if ((match = /^\/api\/teams\/([^/]+)\/transcript$/.exec(path)))
    replyJson(response, 200, await transcriptView(fed, decodeURIComponent(match[1]!), offset(url, 'from')));
  else if (path === '/api/signals')
    replyJson(
      response,
      200,
      await signalsView(fed, {
        before: url.searchParams.get('before') ?? undefined,
        limit: url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : undefined,
        team: url.searchParams.get('team') ?? undefined,
      }),
    );
  else if ((match = /^\/api\/signals\/([^/]+)$/.exec(path)))
    replyJson(response, 200, await signalThreadView(fed, decodeURIComponent(match[1]!)));
  else if (path === '/api/federation') replyJson(response, 200, await federationView(fed, views));
  else return false;
  return true;
}

function offset(url: URL, name: string): number {
  const text = url.searchParams.get(name) ?? '0';
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw new InvalidInputError(`${name}: expected a byte offset (a whole number >= 0), got "${text}"`);
  return n;
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new InvalidInputError(`the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new InvalidInputError('the request body is not JSON: expected {action, team?, signalId?, text?}');
  }
}
