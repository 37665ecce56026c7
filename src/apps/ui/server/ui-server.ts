import type { FederationChanges } from '../../../ports/federation-changes.js';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { InvalidInputError } from '../../../core/errors.js';
import type { Federation } from '../../../engine/context.js';
import type { DispatchView } from '../../serve/serve-federation.js';
import type { LiveEvent } from '../api-types.js';
import { watchHostChanges } from '../live/host-changes.js';
import { createLiveHub, type LiveHub } from '../live/live-hub.js';
import { apiRoute } from './api-routes.js';
import { loadUiAssets, type UiAssets } from './assets.js';
import { route, type RouteContext } from './routes.js';
import { allowedHosts, cookieName, isWildcard, newToken } from './security.js';
import { serveEvents } from './sse.js';
import { UiViews } from './ui-views.js';

/** Where the dashboard listens, and the page it serves: all checked before anything else starts. */
export interface UiListenOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** The page's files (default: dist/ui/ of fed's package). */
  assetsDir?: string;
}

/** What the dashboard serves from, once it listens. */
export interface UiServeOptions {
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

export interface UiServerOptions extends UiListenOptions, UiServeOptions {}

const DEFAULT_CLOCK_MS = 30_000;

/**
 * Connections served at once: every page of every browser holds one event stream and makes a few
 * requests, far below this. Past it a new connection is closed as it is accepted, so a local process
 * without the token cannot take every file descriptor of `fed ui` by opening sockets.
 */
export const UI_MAX_CONNECTIONS = 128;
/** A connection that has not sent its whole request head by then is closed: idle sockets do not hold the cap. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How often connections are checked against HEADERS_TIMEOUT_MS: a slow one is closed at most this late. */
const CONNECTIONS_CHECK_MS = 1_000;

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
 * The dashboard's server listening on its address, not serving yet: `fed serve --ui` opens it before the
 * server starts, so an address it cannot listen on is refused before anything runs or is announced.
 */
export interface UiListener {
  /** The port it listens on (the free one picked for port 0). */
  readonly port: number;
  /**
   * Serve the dashboard of `fed` from it (once): a request that came before waits for this. The watch on
   * the federation starts right after (see startUiServer).
   */
  start(fed: Federation, options?: UiServeOptions): UiServer;
  /** Stop listening, and serving once started: what start returned closes the same way. */
  close(): Promise<void>;
}

/**
 * Serve the dashboard of `fed` (`fed ui`) until closed: one change watch (the live hub) for the server's
 * whole life, which both streams to the browsers and tells the cached views what to read again. Resolves
 * as soon as the server listens, so the URL is printed at once; the watch starts right after (with a
 * thousand teams, thousands of folders) and the board and the queue are computed once it hears changes.
 * Every request past the page's own files waits for the watches (the feed's and, on JetStream, the
 * hosts'), so nothing a page reads was read before they could hear its next change, and nothing made
 * after the URL is printed is missed. Refused when the page is not built (UI_NOT_BUILT), and when it
 * cannot listen on the address (listenUiServer).
 */
export async function startUiServer(fed: Federation, options: UiServerOptions = {}): Promise<UiServer> {
  return (await listenUiServer(options)).start(fed, options);
}

/**
 * Listen on the dashboard's address without serving yet (UiListener). Refused, with nothing left
 * listening, when the page is not built (UI_NOT_BUILT), for a wildcard address, and when the address
 * cannot be listened on: a host that names nothing or no address of this machine, a port in use or not
 * allowed (INVALID_INPUT, naming the option to change).
 */
export async function listenUiServer(options: UiListenOptions = {}): Promise<UiListener> {
  const assets = loadUiAssets(options.assetsDir);
  const host = options.host ?? '127.0.0.1';
  if (isWildcard(host)) throw wildcardRefusal(host);
  // Requests wait for start(); a close before it ends them.
  let handle!: (listener: RequestListener) => void;
  let drop!: () => void;
  const handler = new Promise<RequestListener>((resolve, reject) => {
    handle = resolve;
    drop = () => reject(new Error('closed'));
  });
  handler.catch(() => undefined);
  // route() answers its own failures; one that escapes it (a broken socket) ends that response alone.
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: HEADERS_TIMEOUT_MS,
      // Node looks for connections past those timeouts only this often (30 s by default): a connection
      // that sends half a request would otherwise hold its slot three times as long.
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    },
    (request, response) =>
      void handler.then(
        (listener) => listener(request, response),
        () => response.destroy(),
      ),
  );
  server.maxConnections = UI_MAX_CONNECTIONS;
  const port = options.port ?? 0;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw listenRefusal(error, host, port);
  }
  const bound = (server.address() as AddressInfo).port;
  const streams = new Set<ServerResponse>();
  let started: ReturnType<typeof serveUi> | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      drop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const stream of streams) stream.end();
      server.closeAllConnections();
      const live = await started?.live;
      await Promise.all([closed, live?.close()]);
    })());
  return {
    port: bound,
    start(fed, serveOptions = {}) {
      if (started) throw new Error('the dashboard is served already');
      if (closing) throw new Error('the dashboard was closed');
      started = serveUi(fed, { ...serveOptions, host, port: bound, assets, streams, close });
      handle(started.listener);
      return started.server;
    },
    close,
  };
}

interface Serving extends UiServeOptions {
  host: string;
  port: number;
  assets: UiAssets;
  streams: Set<ServerResponse>;
  close(): Promise<void>;
}

/** The dashboard served on a listening server: its routes, its views and its live watch. */
function serveUi(
  fed: Federation,
  options: Serving,
): { server: UiServer; listener: RequestListener; live: Promise<Live | undefined> } {
  const { host, port, streams } = options;
  const token = newToken();
  // The dashboard's actions send signals for as long as it serves: they check a watched registry.
  fed.watchRegistry();
  const views = new UiViews(fed);
  const ctx: RouteContext = {
    guard: { token, hosts: allowedHosts(host, port), cookie: cookieName(port) },
    assets: options.assets,
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
  // The watch starts once the caller has printed the URL (its continuation runs before any immediate):
  // setting it up is synchronous, a few hundred ms with a thousand teams. A watch that cannot start fails
  // the requests, and onFeedError says why.
  const created = new Promise<Live>((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(watchLive(fed, views, options));
      } catch (error) {
        reject(error as Error);
      }
    }),
  );
  const live = created.then(async (started) => {
    await started.ready;
    return started;
  });
  live.catch(() => undefined);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    server: {
      url: `${origin}/?token=${token}`,
      token,
      get clients() {
        return streams.size;
      },
      close: options.close,
    },
    listener: (request: IncomingMessage, response: ServerResponse) =>
      void route(request, response, ctx).catch(() => response.destroy()),
    live: created.catch(() => undefined),
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
function watchLive(fed: Federation, views: UiViews, options: UiServeOptions): Live {
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

/** This machine's IPv4 addresses others can reach (not loopback). */
function machineAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((address) => address && !address.internal && address.family === 'IPv4')
    .map((address) => address!.address);
}

/**
 * A wildcard bind would be reachable on every address yet answer none of them (the Host must name the
 * bound address): refused, naming this machine's addresses to pass instead.
 */
function wildcardRefusal(host: string): InvalidInputError {
  const addresses = machineAddresses();
  const examples = addresses.length ? addresses.join(', ') : 'an address of this machine';
  return new InvalidInputError(
    `--host ${host} listens on every address, but the dashboard answers only to the address it is bound to: ` +
      `pass one address instead (${examples}), or leave --host out for 127.0.0.1`,
  );
}

/** Failures of the name lookup of --host: the name names nothing (to this machine's resolver). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL', 'ENODATA']);
/** Out of file descriptors: the machine's state, not the address; the CLI explains these as it does for files. */
const EXHAUSTED = new Set(['EMFILE', 'ENFILE']);

/**
 * Why the dashboard cannot listen on `host`:`port`, as the bad input it is (exit 2): what is wrong with
 * which option, and what to pass instead. A failure that is not about the address is returned as it is.
 */
function listenRefusal(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || EXHAUSTED.has(code)) return error as Error;
  const named = /^[\w.:%-]+$/.test(host) ? host : JSON.stringify(host);
  const ours = ['127.0.0.1', ...machineAddresses()].join(', ');
  const otherPort = 'pass another --port, or 0 for a free one';
  if (NO_SUCH_NAME.has(code))
    return new InvalidInputError(
      `--host ${named}: no such address (${code}); give an IP address or a name of this machine, such as 127.0.0.1`,
    );
  if (code === 'EAI_AGAIN')
    return new InvalidInputError(
      `--host ${named}: the name could not be looked up now (${code}); give an IP address of this machine, ` +
        `such as 127.0.0.1, or try again`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new InvalidInputError(
      `--host ${named}: not an address of this machine (${code}); give one of its addresses (${ours}), ` +
        `or leave --host out for 127.0.0.1`,
    );
  if (code === 'EINVAL' || code === 'EAFNOSUPPORT')
    return new InvalidInputError(
      `--host ${named}: cannot listen on this address (${code}); give one of this machine's addresses ` +
        `(${ours}), or leave --host out for 127.0.0.1`,
    );
  if (code === 'EADDRINUSE') return new InvalidInputError(`--port ${port}: the port is in use (${code}); ${otherPort}`);
  if (code === 'EACCES' || code === 'EPERM')
    return new InvalidInputError(
      port > 0 && port < 1024
        ? `--port ${port}: not allowed to listen on it (${code}): ports below 1024 need privileges; ` +
            `pass a --port from 1024, or 0 for a free one`
        : `--host ${named} --port ${port}: not allowed to listen there (${code}); ${otherPort}`,
    );
  return new InvalidInputError(
    `--host ${named} --port ${port}: cannot listen there (${error.message}); give another --host or --port`,
  );
}
