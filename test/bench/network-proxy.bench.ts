/**
 * A sandboxed agent's request through its network policy's proxy (issue 49): a 1 MiB download from a local
 * server, by a client in a process of its own (as the agent is), through the proxy as fed runs it in the
 * launcher — plain HTTP forwarding and a CONNECT tunnel (how TLS goes) — in interleaved rounds against two
 * ceilings:
 * - the same download made directly (no goal: on loopback, any hop through another process costs about
 *   3× a download that takes a millisecond — a bare relay does too — where on a real network it is lost in
 *   the noise);
 * - the same download through a bare relay in this process, the least any proxy does (each connection
 *   piped both ways, nothing read, checked or recorded): what the proxy's own work costs, goal ≤ 1.3×.
 * And the proxy's CPU while it serves a listener and holds an idle tunnel open for 2 s: goal none to speak
 * of (≤ 20 ms, 1 % of a core).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostPolicy, type HostPolicy, NetworkProxy } from 'fed/testing';
import { report, reportInterleavedRatios } from './harness.js';

const ROUNDS = 11;
/** Downloads per measured run: one 1 MiB download takes about a millisecond on loopback. */
const PER_RUN = 20;
const BODY_BYTES = 1024 * 1024;

/**
 * The agent, and the server it downloads from, in a process of their own (the proxy runs alone in this
 * one, as in the launcher): downloads `n` times, directly, through the proxy (absolute form) or through a
 * CONNECT tunnel.
 */
const CLIENT = `
const http = require('node:http');
const body = Buffer.alloc(${BODY_BYTES}, 'x');
const server = http.createServer((req, res) => res.end(body)).listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
const get = (options, socket) => new Promise((resolve, reject) => {
  const req = http.request({ ...options, headers: { connection: 'close' }, ...(socket ? { createConnection: () => socket } : { agent: false }) });
  req.on('response', (res) => { let n = 0; res.on('data', (c) => (n += c.length)); res.on('end', () => resolve(n)); });
  req.on('error', reject);
  req.end();
});
const tunnel = (proxy, target) => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port: proxy, method: 'CONNECT', path: target });
  req.on('connect', (res, socket) => (res.statusCode === 200 ? resolve(socket) : reject(new Error('CONNECT ' + res.statusCode))));
  req.on('error', reject);
  req.end();
});
process.on('message', async ({ mode, proxy, n }) => {
  const port = server.address().port;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    if (mode === 'direct') await get({ host: '127.0.0.1', port, path: '/file' });
    else if (mode === 'relay') await get({ host: '127.0.0.1', port: proxy, path: '/file' });
    else if (mode === 'forward') await get({ host: '127.0.0.1', port: proxy, path: 'http://localhost:' + port + '/file' });
    else await get({ host: 'localhost', port, path: '/file' }, await tunnel(proxy, 'localhost:' + port));
  }
  process.send(performance.now() - started);
});
`;

/** A bare TCP relay to 127.0.0.1:`port`: each connection piped both ways, nothing read or checked. */
async function bareRelay(port: number): Promise<Server> {
  const relay = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return relay;
}

function timed(client: ChildProcess, message: Record<string, unknown>): Promise<number> {
  client.send(message);
  return once(client, 'message').then(([elapsed]) => elapsed as number);
}

export default async function networkProxyBench(): Promise<void> {
  const client = spawn(process.execPath, ['-e', CLIENT], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = (await once(client, 'message')) as [{ port: number }];
  const proxy = new NetworkProxy(hostPolicy({ allow: [`localhost:${port}`] }, []) as HostPolicy, () => undefined);
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  proxy.serve(listener);
  const proxyPort = (listener.address() as AddressInfo).port;
  const relay = await bareRelay(port);
  const relayPort = (relay.address() as AddressInfo).port;
  try {
    await reportInterleavedRatios(
      { name: `${PER_RUN} × 1 MiB downloads, direct`, run: () => timed(client, { mode: 'direct', port, n: PER_RUN }) },
      [
        {
          name: 'through the proxy (plain HTTP forwarding)',
          run: () => timed(client, { mode: 'forward', port, proxy: proxyPort, n: PER_RUN }),
        },
        {
          name: 'through a CONNECT tunnel',
          run: () => timed(client, { mode: 'tunnel', port, proxy: proxyPort, n: PER_RUN }),
        },
      ],
      ROUNDS,
    );
    // What the proxy itself costs: the same downloads through the least a proxy does — a bare relay in
    // this process piping each connection to the server, no request read, no check, no record.
    await reportInterleavedRatios(
      {
        name: `${PER_RUN} × 1 MiB downloads through a bare relay`,
        run: () => timed(client, { mode: 'relay', port, proxy: relayPort, n: PER_RUN }),
      },
      [
        {
          name: 'through the proxy (plain HTTP forwarding)',
          run: () => timed(client, { mode: 'forward', port, proxy: proxyPort, n: PER_RUN }),
          max: 1.3,
        },
        {
          name: 'through a CONNECT tunnel',
          run: () => timed(client, { mode: 'tunnel', port, proxy: proxyPort, n: PER_RUN }),
          max: 1.3,
        },
      ],
      ROUNDS,
    );
    // Idle: a tunnel held open, nothing sent; the proxy's CPU over 2 s (this process does nothing else).
    const idleClient = connect(proxyPort, '127.0.0.1');
    idleClient.write(`CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`);
    await once(idleClient, 'data');
    await sleep(500);
    const before = process.cpuUsage();
    await sleep(2_000);
    const used = process.cpuUsage(before);
    idleClient.destroy();
    const ms = (used.user + used.system) / 1000;
    report({
      name: "the proxy's CPU over 2 s idle, a tunnel open",
      value: ms,
      unit: 'ms',
      goal: '≤ 20 ms',
      met: ms <= 20,
    });
  } finally {
    client.kill();
    proxy.close();
    relay.close();
  }
}
