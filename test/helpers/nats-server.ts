import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { skipWithout } from './loud-skip.js';

/**
 * Real nats-server processes for the JetStream backend's tests: JetStream on, a free localhost port, a
 * temp store dir, started and awaited until JetStream answers, stopped after. No mocks: the point of
 * these suites is what the server actually does (dedupe, revision CAS, redelivery, restarts).
 *
 * Without nats-server on PATH the suites are skipped, and say so loudly; with `CI` set they fail instead,
 * naming it (.ci/run installs it), so CI never passes by skipping them (loud-skip.ts).
 */

const BINARY = 'nats-server';

/** Why the NATS suites cannot run here, or undefined when they can. */
export const natsServerMissing: string | undefined = (() => {
  const found = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (!found.error && found.status === 0) return undefined;
  return `${BINARY} not on PATH (install it: apt-get install nats-server)`;
})();

/**
 * Whether to skip a NATS suite: true only outside CI when the server is missing, after a warning that
 * names the suite. Under CI a missing server fails the suite's file, naming it (loud-skip.ts).
 */
export function skipWithoutNatsServer(
  suite: string,
  missing: string | undefined = natsServerMissing,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = console.warn,
): boolean {
  return skipWithout(suite, missing, env, warn);
}

/** The server version line, e.g. `nats-server: v2.9.10`. */
export function natsServerVersion(): string {
  return spawnSync(BINARY, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** A free TCP port on 127.0.0.1 (the kernel picks it; a race with another process only fails a start, which is retried). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Every server process this test process started, so none outlives it even when a test fails mid-way. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface NatsServer {
  /** Its server_name, as JetStream's cluster info names a stream's or consumer's leader. */
  name: string;
  /** `nats://127.0.0.1:<port>` (with `user:password@` when the server requires them) */
  url: string;
  port: number;
  storeDir: string;
  /** Start it again on the same port and store (after `kill` or `stop`); resolves when JetStream answers. */
  start(): Promise<void>;
  /** SIGKILL, as a crash or power cut of the server would be; resolves when the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s); resolves when the process is gone. */
  stop(): Promise<void>;
  /** The server's recent output, for failure messages. */
  log(): string;
}

interface NodeSpec {
  name: string;
  port: number;
  storeDir: string;
  configFile: string;
  /** `user:password@` when the server requires them, else empty. */
  userinfo?: string;
  auth?: NatsServerOptions['auth'];
  /** Client URLs that must answer with JetStream before `start` resolves. */
  readyUrls: () => string[];
}

const START_TIMEOUT_MS = 30_000;

function serverNode(spec: NodeSpec): NatsServer {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  const url = `nats://${spec.userinfo ?? ''}127.0.0.1:${spec.port}`;

  const launch = () => {
    const proc = spawn(BINARY, ['-c', spec.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(proc);
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    exited = new Promise((resolve) =>
      proc.on('exit', () => {
        running.delete(proc);
        resolve();
      }),
    );
    child = proc;
  };

  const end = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return exited;
    proc.kill(signal);
    const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  return {
    name: spec.name,
    url,
    port: spec.port,
    storeDir: spec.storeDir,
    start: async () => {
      if (natsServerMissing) throw new Error(`the NATS suites never skip under CI: ${natsServerMissing}`);
      launch();
      await waitForJetStream(
        spec.readyUrls(),
        spec.auth,
        () => output,
        () => child?.exitCode !== null || child?.signalCode !== null,
      );
    },
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    log: () => output,
  };
}

/**
 * Wait until JetStream answers an account-info request on one of `urls` — in a cluster that also means a
 * meta leader was elected, which is what the suites need before creating streams.
 */
async function waitForJetStream(
  urls: string[],
  auth: NatsServerOptions['auth'],
  log: () => string,
  died: () => boolean,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    if (died()) throw new Error(`nats-server exited while starting:\n${log()}`);
    try {
      const nc = await connect({
        servers: urls,
        timeout: 1_000,
        reconnect: false,
        ...(auth && { user: auth.user, pass: auth.password }),
      });
      try {
        await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (error) {
      last = error;
      await sleep(100);
    }
  }
  throw new Error(
    `nats-server did not answer with JetStream on ${urls.join(', ')} within ${START_TIMEOUT_MS} ms (${String(last)}):\n${log()}`,
  );
}

function quoted(path: string): string {
  return JSON.stringify(path);
}

export interface NatsServerOptions {
  /** A user and password the server requires; `url` then carries them (`nats://user:password@…`). */
  auth?: { user: string; password: string };
}

/** One nats-server with JetStream on a free localhost port and a temp store dir; `dispose` removes it all. */
export function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer & { dispose(): Promise<void> }> {
  return onFreshPorts(() => startNatsServerOnce(options));
}

async function startNatsServerOnce(options: NatsServerOptions): Promise<NatsServer & { dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fed-nats-'));
  const port = await freePort();
  const storeDir = join(dir, 'store');
  const configFile = join(dir, 'nats.conf');
  const { auth } = options;
  const authorization = auth
    ? [`authorization { user: ${quoted(auth.user)}, password: ${quoted(auth.password)} }`]
    : [];
  writeFileSync(
    configFile,
    [`listen: 127.0.0.1:${port}`, `jetstream { store_dir: ${quoted(storeDir)} }`, ...authorization, ''].join('\n'),
  );
  const userinfo = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@` : '';
  const server = serverNode({
    name: 'single',
    port,
    storeDir,
    configFile,
    userinfo,
    auth,
    readyUrls: () => [`nats://127.0.0.1:${port}`],
  });
  const dispose = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  await server.start().catch(async (error: unknown) => {
    await dispose();
    throw error;
  });
  return { ...server, dispose };
}

export interface NatsCluster {
  nodes: NatsServer[];
  /** All client URLs, comma-separated, as FED_NATS_URL takes them. */
  urls: string;
  dispose(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nodes on localhost ports (route ports too), each with its own store dir,
 * resolved once JetStream answers (a meta leader exists). Streams and KV buckets with `replicas: size`
 * survive one node killed.
 */
export function startNatsCluster(size = 3): Promise<NatsCluster> {
  return onFreshPorts(() => startNatsClusterOnce(size));
}

async function startNatsClusterOnce(size: number): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'fed-nats-cluster-'));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < size; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const clientUrls = clientPorts.map((port) => `nats://127.0.0.1:${port}`);
  const nodes = clientPorts.map((port, i) => {
    const name = `n${i + 1}`;
    const storeDir = join(dir, name);
    mkdirSync(storeDir, { recursive: true });
    const configFile = join(dir, `${name}.conf`);
    writeFileSync(
      configFile,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${port}`,
        `jetstream { store_dir: ${quoted(storeDir)} }`,
        'cluster {',
        '  name: fed-test',
        `  listen: 127.0.0.1:${routePorts[i]}`,
        `  routes: [${routePorts
          .filter((_, j) => j !== i)
          .map((p) => `nats-route://127.0.0.1:${p}`)
          .join(', ')}]`,
        '}',
        '',
      ].join('\n'),
    );
    return serverNode({ name, port, storeDir, configFile, readyUrls: () => [`nats://127.0.0.1:${port}`] });
  });
  const dispose = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  // The nodes need each other to elect a leader, so all are launched before any is awaited.
  const started = await Promise.allSettled(nodes.map((node) => node.start()));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await dispose();
    throw failed.reason;
  }
  try {
    await waitForPlacement(clientUrls, size);
  } catch (error) {
    await dispose();
    throw new Error(`${String(error)}\n${nodes.map((node) => `--- ${node.name}\n${node.log()}`).join('\n')}`, {
      cause: error,
    });
  }
  return { nodes, urls: clientUrls.join(','), dispose };
}

/**
 * A meta leader answers before every peer has joined it, and until they have, a stream with `size`
 * replicas is refused ("no suitable peers for placement", seen in CI on a loaded machine). So the
 * cluster is ready when such a stream can be made: a probe one is made, then deleted.
 */
async function waitForPlacement(urls: string[], size: number): Promise<void> {
  const nc = await connect({ servers: urls, timeout: 1_000 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await jsm.streams.add({
          name: 'FED_TEST_READY',
          subjects: ['fed-test-ready'],
          num_replicas: size,
          storage: StorageType.Memory,
        });
        await jsm.streams.delete('FED_TEST_READY');
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(
            `the ${size}-node cluster could not place an R${size} stream within ${START_TIMEOUT_MS} ms: ${String(error)}`,
            { cause: error },
          );
        await sleep(100);
      }
    }
  } finally {
    await nc.close();
  }
}

/**
 * A port from freePort is free when picked, not when the server binds it: another process's connection
 * can take it meanwhile (seen with several suites starting servers at once). Such a start is made again
 * on fresh ports; any other failure is the test's.
 */
async function onFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt === 5 || !/address already in use/.test(String(error))) throw error;
    }
  }
}
