import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Federation } from '../../../engine/context.js';
import { loadUiAssets } from './assets.js';
import { route, type RouteContext } from './routes.js';
import { allowedHosts, newToken } from './security.js';
import { UiViews } from './ui-views.js';

export interface UiServerOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** The page's files (default: dist/ui/ of fed's package). */
  assetsDir?: string;
}

export interface UiServer {
  /** The URL to open, token included: `http://127.0.0.1:<port>/?token=…`. */
  url: string;
  token: string;
  /** Stop serving: ends every open response (event streams included) and the watch on the federation. */
  close(): Promise<void>;
}

/** Serve the dashboard of `fed` (`fed ui`) until closed. Refused when the page is not built (UI_NOT_BUILT). */
export async function startUiServer(fed: Federation, options: UiServerOptions = {}): Promise<UiServer> {
  const assets = loadUiAssets(options.assetsDir);
  const host = options.host ?? '127.0.0.1';
  const token = newToken();
  const views = new UiViews(fed);
  const ctx: RouteContext = {
    fed,
    guard: { token, hosts: new Set() },
    assets,
    views,
    api: async () => false,
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void route(request, response, ctx);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  ctx.guard.hosts = allowedHosts(host, port);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    token,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
