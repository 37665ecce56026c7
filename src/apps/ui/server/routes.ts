import type { IncomingMessage, ServerResponse } from 'node:http';
import { FedError } from '../../../core/errors.js';
import { fileSystemErrorFor } from '../../../infra/fs/fs-errors.js';
import type { ActionRefusal } from '../api-types.js';
import { pageAt } from '../client/pages.js';
import type { UiAssets } from './assets.js';
import { reply, replyJson, replyText } from './replies.js';
import { checkRequest, sessionCookie, tokenMatches, type Guard } from './security.js';
import type { UiViews } from './ui-views.js';

/** What the routes serve from: one of each per server. */
export interface RouteContext {
  guard: Guard;
  assets: UiAssets;
  views: UiViews;
  /**
   * Resolves once the server's change watch hears changes: what a page reads is read after it, so the
   * page's next change is never missed (the page's own files need not wait).
   */
  live: () => Promise<void>;
  /** The API routes past the board and needs-you (team pages, signals, federation, actions, events). */
  api: (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<boolean>;
}

/** Answer one request: the guard first, then the route. */
export async function route(request: IncomingMessage, response: ServerResponse, ctx: RouteContext): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://fed-ui.invalid');
  // A service manager's liveness probe holds no token; the answer says nothing but that the server answers.
  if (url.pathname === '/healthz' && (request.method === 'GET' || request.method === 'HEAD'))
    return replyText(response, 200, 'ok\n');
  // A page's path serves the shell, which routes itself (`/team/<id>` shows that team).
  const isPage = pageAt(url.pathname) !== undefined && request.method !== 'POST';
  const exchange = isPage && url.searchParams.has('token');
  const refusal = checkRequest(request, ctx.guard, { exchange });
  if (refusal) return replyText(response, refusal.status, refusal.text);
  if (exchange) {
    if (!tokenMatches(url.searchParams.get('token') ?? undefined, ctx.guard.token))
      return replyText(response, 401, 'wrong token: open the URL `fed ui` printed (it carries the token)\n');
    url.searchParams.delete('token');
    return reply(response, 303, '', {
      'Set-Cookie': sessionCookie(ctx.guard),
      Location: `${url.pathname}${url.search}`,
      'Cache-Control': 'no-store',
    });
  }
  try {
    if (isPage)
      return reply(response, 200, ctx.assets.shell, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
      });
    if (url.pathname.startsWith('/assets/') && request.method !== 'POST') {
      const file = ctx.assets.file(url.pathname.slice('/assets/'.length));
      if (!file) return replyText(response, 404, `no such file: ${url.pathname}\n`);
      return reply(response, 200, file.body, { 'Content-Type': file.type, 'Cache-Control': 'no-cache' });
    }
    await ctx.live();
    if (url.pathname === '/api/board' && request.method !== 'POST')
      return replyJson(response, 200, await ctx.views.board());
    if (url.pathname === '/api/needs-you' && request.method !== 'POST')
      return replyJson(response, 200, await ctx.views.needsYou());
    if (await ctx.api(request, response, url)) return;
    replyText(response, 404, `nothing is served at ${request.method} ${url.pathname}\n`);
  } catch (error) {
    replyError(response, error);
  }
}

/**
 * The HTTP status of a fed error: an unknown team, signal or schedule 404, a conflict (one that exists
 * already, one another process holds) 409, other refusals 400. A file of the federation that cannot be
 * used (corrupt, unreadable, not a regular file) or a filesystem that refuses is the server's state, never
 * the request's — no request names a file — so 500, as any other failure of the server: retrying the
 * request cannot help, the message says which file and how to fix it.
 */
export function httpStatusOf(error: FedError): number {
  if (/^(FILE_(CORRUPT|UNREADABLE|NOT_REGULAR)|FS_.*)$/.test(error.code)) return 500;
  if (/^UNKNOWN_(TEAM|SIGNAL|SCHEDULE|HOST)$/.test(error.code)) return 404;
  if (/CONFLICT|LOCK|BUSY|RUNNING|MOVED|INTERRUPTED|^DUPLICATE_|_EXISTS$/.test(error.code)) return 409;
  return error.refusal ? 400 : 500;
}

/** A failure as the page shows it: fed's own code and message (ActionRefusal), never a stack. */
export function replyError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) return void response.destroy();
  // A filesystem error fed knows (a file where a folder belongs, no permission) is said as fed's CLI says it.
  error = fileSystemErrorFor(error) ?? error;
  if (error instanceof FedError) {
    const refusal: ActionRefusal = { ok: false, code: error.code, message: error.message };
    return replyJson(response, httpStatusOf(error), refusal);
  }
  const refusal: ActionRefusal = { ok: false, code: 'INTERNAL', message: (error as Error).message ?? String(error) };
  replyJson(response, 500, refusal);
}
