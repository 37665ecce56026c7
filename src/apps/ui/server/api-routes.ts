import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidInputError } from '../../../core/errors.js';
import { MAX_PLAN_TEAMS } from '../../../core/schema/ui-steering-request.js';
import type { Federation } from '../../../engine/context.js';
import { runAction } from './actions.js';
import { federationView } from './federation-view.js';
import { replyJson } from './replies.js';
import { STEERING_ROUTES, runSteering } from './steering.js';
import { planProposalView, steeringView } from './steering-views.js';
import type { DispatchView } from '../../serve/serve-federation.js';
import { signalsView, signalThreadView } from './signal-views.js';
import { teamPageView, transcriptView } from './team-page.js';
import type { UiViews } from './ui-views.js';

/** The most a POST body may hold: an answer, the changes requested, a mission, never a file. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * The JSON routes past the board and the queue (api-types.ts lists them all). Returns false when `url`
 * names none of them, so the caller answers 404.
 */
export async function apiRoute(
  fed: Federation,
  views: UiViews,
  dispatch: DispatchView | undefined,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  if (request.method === 'POST') {
    const steer = Object.hasOwn(STEERING_ROUTES, path) ? STEERING_ROUTES[path] : undefined;
    if (path !== '/api/actions' && !steer) return false;
    const body = await readJsonBody(request);
    const { result, teams } = steer
      ? await runSteering(fed, steer, body)
      : await runAction(fed, body).then(({ result, team }) => ({ result, teams: [team] }));
    // What the action changed is read again at once; the change feed tells the same to every page.
    for (const team of teams) views.invalidateAfterAction(team);
    replyJson(response, 200, result);
    return true;
  }
  let match: RegExpExecArray | null;
  if ((match = /^\/api\/teams\/([^/]+)$/.exec(path)))
    replyJson(response, 200, await teamPageView(fed, views, pathPart(match[1]!)));
  else if ((match = /^\/api\/teams\/([^/]+)\/transcript$/.exec(path)))
    replyJson(response, 200, await transcriptView(fed, pathPart(match[1]!), offset(url, 'from')));
  else if (path === '/api/signals')
    replyJson(
      response,
      200,
      await signalsView(fed, {
        before: url.searchParams.get('before') ?? undefined,
        limit: url.searchParams.get('limit') ?? undefined,
        team: url.searchParams.get('team') ?? undefined,
      }),
    );
  else if ((match = /^\/api\/signals\/([^/]+)$/.exec(path)))
    replyJson(response, 200, await signalThreadView(fed, pathPart(match[1]!)));
  else if (path === '/api/federation') replyJson(response, 200, await federationView(fed, views));
  else if (path === '/api/steering') replyJson(response, 200, await steeringView(fed, dispatch));
  else if (path === '/api/plan') replyJson(response, 200, planProposalView(fed, planTeams(url)));
  else return false;
  return true;
}

/** A %-escaped part of the path, decoded; a malformed escape is the request's fault, not the server's. */
function pathPart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new InvalidInputError(`the path part "${text}" has a malformed %-escape; escape it with encodeURIComponent`);
  }
}

/** `?teams=<n>`: at most this many teams in the plan (absent: the default). */
function planTeams(url: URL): number | undefined {
  const text = url.searchParams.get('teams');
  if (text === null || text === '') return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_PLAN_TEAMS)
    throw new InvalidInputError(`teams: expected a whole number of teams from 1 to ${MAX_PLAN_TEAMS}, got "${text}"`);
  return n;
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
    throw new InvalidInputError('the request body is not JSON: expected an object of the fields its form sends');
  }
}
