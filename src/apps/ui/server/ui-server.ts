import type { FederationChanges } from '../../../ports/federation-changes.js';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { InvalidInputError } from '../../../core/errors.js';
import type { Federation } from '../../../engine/context.js';
import type { DispatchView } from '../../serve/serve-federation.js';
import type { LiveEvent } from '../api-types.js';
import { watchHostChanges } from '../live/host-changes.js';
import { createLiveHub, type LiveHub } from '../live/live-hub.js';
import { apiRoute } from './api-routes.js';
import { loadUiAssets } from './assets.js';
import { route, type RouteContext } from './routes.js';
import { allowedHosts, cookieName, isWildcard, newToken } from './security.js';
import { serveEvents } from './sse.js';
import { UiViews } from './ui-views.js';

export interface UiServerOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /**
   * The change feed to serve from (default: the backend's own); a process that serves more than the
   * dashboard (`fed serve --ui`) hands in the one it shares.
   */
  changes?: FederationChanges;
  /**
   * The dispatcher of the `fed serve` this dashboard runs in (`fed serve --ui`), read-only: the steering
   * page shows what it runs and queues. Absent under plain `fed ui`, where nothing dispatches.
   */
  dispatch?: DispatchView;
  /** The page's files (default: dist/ui/ of fed's package). */
  assetsDir?: string;
  /**
   * The change feed broke for good (the system's watch limit, the JetStream connection closed): the pages
   * are told `stopped` and nothing updates any more. `fed ui` warns and exits 1.
   */
  onFeedError?: (error: Error) => void;
  /**
   * How often what depends on the clock alone (health, overdue signals) is read again (default 30 s):
   * ONE timer for the server, whatever the number of pages; a change is told only when something changed.
   */
  clockMs?: number;
}

const DEFAULT_CLOCK_MS = 30_000;

/**
 * Connections served at once: every page of every browser holds one event stream and makes a few
 * requests, far below this. Past it a new connection is closed as it is accepted, so a local process
 * without the token cannot take every file descriptor of `fed ui` by opening sockets.
 */
export const UI_MAX_CONNECTIONS = 128;
/** A connection that has not sent its whole request head by then is closed: idle sockets do not hold the cap. */
const HEADERS_TIMEOUT_MS = 10_000;

export interface UiServer {
  /** The URL to open, token included: `http://127.0.0.1:<port>/?token=…`. */
  url: string;
  token: string;
  /** Event streams (`/events`) open now. */
  readonly clients: number;
  /** Stop serving: ends every open response (event streams included) and the watch on the federation. */
  close(): Promise<void>;
}

/**
 * Serve the dashboard of `fed` (`fed ui`) until closed: one change watch (the live hub) for the server's
 * whole life, which both streams to the browsers and tells the cached views what to read again. Resolves
 * as soon as the server listens, so the URL is printed at once; the watch starts right after (with a
 * thousand teams, thousands of folders) and the board and the queue are computed once it hears changes.
 * Every request past the page's own files waits for the watches (the feed's and, on JetStream, the
 * hosts'), so nothing a page reads was read before they could hear its next change, and nothing made
 * after the URL is printed is missed. Refused when the page is not built (UI_NOT_BUILT).
 */
export async function startUiServer(fed: Federation, options: UiServerOptions = {}): Promise<UiServer> {
  const assets = loadUiAssets(options.assetsDir);
  const host = options.host ?? '127.0.0.1';
  if (isWildcard(host)) throw wildcardRefusal(host);
  const token = newToken();
  // The dashboard's actions send signals for as long as it serves: they check a watched registry.
  fed.watchRegistry();
  const views = new UiViews(fed);
  const streams = new Set<ServerResponse>();
  const ctx: RouteContext = {
    guard: { token, hosts: new Set(), cookie: '' },
    assets,
    views,
    live: () => live.then(() => undefined),
    api: async (request, response, url) => {
      if (url.pathname === '/events' && request.method !== 'POST') {
        serveEvents((await live).hub, request, response, streams);
        return true;
      }
      return apiRoute(fed, views, options.dispatch, request, response, url);
    },
  };
  // route() answers its own failures; one that escapes it (a broken socket) ends that response alone.
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: HEADERS_TIMEOUT_MS },
    (request, response) => void route(request, response, ctx).catch(() => response.destroy()),
  );
  server.maxConnections = UI_MAX_CONNECTIONS;
  // The watch starts once the server listens and the caller has printed the URL (its continuation runs
  // before any immediate): setting it up is synchronous, a few hundred ms with a thousand teams. A watch
  // that cannot start fails the requests, and onFeedError says why.
  const created = new Promise<Live>((resolve, reject) =>
    server.once('listening', () =>
      setImmediate(() => {
        try {
          resolve(watchLive(fed, views, options));
        } catch (error) {
          reject(error as Error);
        }
      }),
    ),
  );
  const live = created.then(async (started) => {
    await started.ready;
    return started;
  });
  live.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  ctx.guard.hosts = allowedHosts(host, port);
  ctx.guard.cookie = cookieName(port);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    token,
    get clients() {
      return streams.size;
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const stream of streams) stream.end();
        server.closeAllConnections();
        const started = await created.catch(() => undefined);
        await Promise.all([closed, started?.close()]);
      })();
      return closing;
    },
  };
}

/** The live side of a server: its change watches, the views it keeps current and the clock. */
interface Live {
  hub: LiveHub;
  /** Both watches hear every write: the feed's and the hosts'. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watch the federation for the views and the pages, and start the clock; once the watch hears changes,
 * the board and the queue are computed, so the first page finds them ready (a request meanwhile waits
 * for the same computation).
 */
function watchLive(fed: Federation, views: UiViews, options: UiServerOptions): Live {
  const hub = createLiveHub(options.changes ?? fed.backend.changes, {
    now: fed.now,
    onError: (error) => options.onFeedError?.(error),
  });
  const stopViews = hub.subscribe(undefined, (message) => {
    if (message.event === 'change') views.invalidate((JSON.parse(message.data) as LiveEvent).change);
  });
  let rechecking = false;
  const clock = setInterval(() => {
    if (rechecking) return;
    rechecking = true;
    views
      .recheckClock()
      .then((changes) => changes.forEach((change) => hub.announce(change)))
      // A read that failed is read again at the next tick or request (UiViews keeps it stale).
      .catch(() => undefined)
      .finally(() => (rechecking = false));
  }, options.clockMs ?? DEFAULT_CLOCK_MS);
  // The clock alone never keeps the process alive.
  clock.unref();
  // A read that fails here is read again by the first request (UiViews keeps it stale), which reports it.
  hub.ready.then(() => Promise.all([views.board(), views.needsYou()])).catch(() => undefined);
  // The hosts as they start, stop, are lost or come back (JetStream): told as changes like the feed's.
  const hosts = watchHostChanges(
    fed,
    (change) => hub.announce(change),
    (error) => options.onFeedError?.(error),
  );
  return {
    hub,
    // A host that starts before its watch hears writes is listed as it is, never told: a page that
    // connected meanwhile would miss it, so no request is answered before then. A hosts' watch that could
    // not start (onFeedError heard why) leaves the pages without host changes, not without answers.
    ready: Promise.all([hub.ready, hosts.ready.catch(() => undefined)]).then(() => undefined),
    async close() {
      clearInterval(clock);
      stopViews();
      await Promise.all([hosts.close(), hub.close()]);
    },
  };
}

/**
 * A wildcard bind would be reachable on every address yet answer none of them (the Host must name the
 * bound address): refused, naming this machine's addresses to pass instead.
 */
function wildcardRefusal(host: string): InvalidInputError {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((address) => address && !address.internal && address.family === 'IPv4')
    .map((address) => address!.address);
  const examples = addresses.length ? addresses.join(', ') : 'an address of this machine';
  return new InvalidInputError(
    `--host ${host} listens on every address, but the dashboard answers only to the address it is bound to: ` +
      `pass one address instead (${examples}), or leave --host out for 127.0.0.1`,
  );
}
