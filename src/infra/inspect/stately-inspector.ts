import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InspectionEvent } from 'xstate';
import { safeJsonLine } from './safe-json.js';

/**
 * `--inspect`: live inspection in the Stately inspector (https://stately.ai/inspect, so the browser needs
 * internet). @statelyai/inspect turns xstate inspection events into the inspector's format; a small local
 * page embeds the inspector and receives those events from this process over server-sent events.
 *
 * Why not the package's own websocket server and client: its server leaves browser connections open when
 * stopped, and its client retries a failed connection every 5 s forever — either one keeps the process
 * alive after the command is done. Here the server and every connection are unref'd (they never keep the
 * process alive by themselves), and stop() ends every connection, so a command always exits.
 */
const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

export interface StatelyInspectorOptions {
  /** Port of the local page; default 0 (any free port — the URL says which). */
  port?: number;
  /** Interface to listen on; default the loopback, so inspection data stays on this machine. */
  host?: string;
  /** Events kept for a page that connects late (default 1000, oldest dropped first). */
  replay?: number;
}

export interface StatelyInspector {
  /** Open this in a browser to see the actors. */
  url: string;
  inspect(event: InspectionEvent): void;
  stop(): Promise<void>;
}

export async function startStatelyInspector(options: StatelyInspectorOptions = {}): Promise<StatelyInspector> {
  // Loaded only when asked for: it pulls in websocket and serialization libraries no other command needs.
  const { createInspector } = await import('@statelyai/inspect');
  const replayLimit = options.replay ?? 1000;
  const replay: string[] = [];
  const pages = new Set<ServerResponse>();
  let stopped = false;

  const inspector = createInspector({
    send(statelyEvent) {
      if (stopped) return;
      const message = `data: ${safeJsonLine(statelyEvent)}\n`;
      replay.push(message);
      if (replay.length > replayLimit) replay.shift();
      for (const page of pages) page.write(message);
    },
  });

  const server = createServer((request, response) => {
    if (request.url === '/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.flushHeaders(); // the page's EventSource opens now, not at the first event
      for (const message of replay) response.write(message);
      pages.add(response);
      request.on('close', () => pages.delete(response));
      return;
    }
    if (request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bridgePage());
      return;
    }
    response.writeHead(404).end();
  });
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  server.unref();
  const { address, port } = server.address() as AddressInfo;

  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}/`,
    inspect(event) {
      inspector.inspect.next?.(event);
    },
    async stop() {
      if (stopped) return;
      // The package converts events on a zero-delay timer; let the ones already queued through first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      stopped = true;
      for (const page of pages) page.end('event: disconnected\ndata: {}\n\n');
      pages.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The page a user opens: the Stately inspector in a frame, fed with this process's events. */
function bridgePage(): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>fed — Stately inspector</title>
<style>html, body, iframe { margin: 0; width: 100%; height: 100%; border: 0; }</style>
</head>
<body>
<iframe id="inspector" src="${STATELY_INSPECTOR_URL}"></iframe>
<script>
  // The inspector says "@statelyai.connected" once it listens; events that arrive earlier wait for it.
  const frame = document.getElementById('inspector');
  const waiting = [];
  let connected = false;
  const post = (event) => frame.contentWindow.postMessage(event, '*');
  window.addEventListener('message', (message) => {
    if (message.data && message.data.type === '@statelyai.connected') {
      connected = true;
      waiting.splice(0).forEach(post);
    }
  });
  const events = new EventSource('/events');
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (connected) post(event); else waiting.push(event);
  };
  events.addEventListener('disconnected', () => {
    events.close();
    post({ type: '@statelyai.disconnected' });
  });
</script>
</body>
</html>
`;
}
