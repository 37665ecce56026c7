import { spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchResult } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { asUser, handOver, unprivilegedRound, type UnprivilegedUser } from '../helpers/unprivileged-user.js';
import { bubblewrapMissing, skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { skipWithout } from '../helpers/loud-skip.js';

/**
 * A team's network policy, from inside a real sandboxed launch (the built CLI), as root and as an
 * unprivileged user: the host its policy lists answers through fed's proxy, and a port of this machine's
 * loopback it lists answers directly (forwarded); every other way out — a direct connection to another
 * port, a raw IP, the federation's own port, DNS, UDP, a host Unix socket, a datagram socket pair, a TLS
 * server name other than the tunnel's, a socket of any family but IPv4, IPv6 and netlink's routing one
 * (AF_VSOCK: the way past the network namespace on a virtual machine) — is refused, and the run's record names each host it tried. Local
 * servers only.
 */

const SUITE = 'the network policy tests (need bwrap)';
const user = unprivilegedRound('the network policy tests launched by an unprivileged user');
const LAUNCHERS: { label: string; user?: UnprivilegedUser }[] = [
  { label: `uid ${process.getuid?.()}` },
  ...(user ? [{ label: `${user.name} (uid ${user.uid})`, user }] : []),
];

/** The host's side: servers that count what reaches them. */
interface HostServers {
  allowed: HttpServer;
  other: HttpServer;
  /** Stands for the federation's own dashboard or NATS port. */
  own: Server;
  /** Receives ClientHellos: the first bytes of each connection. */
  tls: Server;
  udp: UdpSocket;
  dns: UdpSocket;
  unix: Server;
  unixPath: string;
  seen: { other: number; own: number; hellos: Buffer[]; udp: number; dns: number; unix: number };
}

const portOf = (server: Server | HttpServer | UdpSocket) => (server.address() as AddressInfo).port;
const listening = (server: Server | HttpServer, ...args: unknown[]) =>
  new Promise<void>((resolve) => (server.listen as (...a: unknown[]) => void)(...args, resolve));
const bound = (socket: UdpSocket, address: string) =>
  new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));

async function startServers(): Promise<HostServers> {
  const seen: HostServers['seen'] = { other: 0, own: 0, hellos: [], udp: 0, dns: 0, unix: 0 };
  const allowed = createHttpServer((_req, res) => res.end('hello from the allowed server'));
  const other = createHttpServer((_req, res) => res.end('the other server answered'));
  other.on('connection', () => seen.other++);
  const own = createServer((socket) => (seen.own++, socket.destroy()));
  const tls = createServer((socket) =>
    socket.once('data', (chunk: Buffer) => (seen.hellos.push(chunk), socket.destroy())),
  );
  const udp = createSocket('udp4').on('message', () => seen.udp++);
  const dns = createSocket('udp4').on('message', () => seen.dns++);
  const dir = tempDir('fed-net-host-');
  chmodSync(dir, 0o755);
  const unixPath = join(dir, 'host.sock');
  const unix = createServer((socket) => (seen.unix++, socket.destroy()));
  await Promise.all([
    listening(allowed, 0, '0.0.0.0'),
    listening(other, 0, '127.0.0.1'),
    listening(own, 0, '127.0.0.1'),
    listening(tls, 0, '127.0.0.1'),
    listening(unix, unixPath),
    bound(udp, '0.0.0.0'),
    bound(dns, '127.0.0.1'),
  ]);
  // Reachable by any user: a refusal is the sandbox's, not the file's mode.
  chmodSync(unixPath, 0o777);
  return { allowed, other, own, tls, udp, dns, unix, unixPath, seen };
}

/** This machine's first address that is not loopback, where there is one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

async function launchNetwork(servers: HostServers, launcher: { user?: UnprivilegedUser }) {
  const { root } = await federationWithMission();
  const allow = [`localhost:${portOf(servers.allowed)}`, `localhost:${portOf(servers.tls)}`];
  // The federation's default is no network; the team's own entry overrides it.
  writeFileSync(
    join(root, 'federate.config.json'),
    JSON.stringify({ agent: { network: 'none', teams: { docs: { network: { allow } } } } }),
  );
  if (launcher.user) handOver(root, launcher.user);
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NO_COLOR: '1',
    FED_TELEMETRY_ENABLED: 'false',
    FED_NET_ALLOWED: String(portOf(servers.allowed)),
    FED_NET_OTHER: String(portOf(servers.other)),
    FED_NET_OWN: String(portOf(servers.own)),
    FED_NET_TLS: String(portOf(servers.tls)),
    FED_NET_UDP: String(portOf(servers.udp)),
    FED_NET_DNS: String(portOf(servers.dns)),
    FED_NET_UNIX: servers.unixPath,
    ...(external ? { FED_NET_EXTERNAL: external } : {}),
  };
  const argv = asUser(launcher.user, [
    process.execPath,
    FED_BIN,
    'launch',
    '--team',
    'docs',
    '--agent',
    fakeAgent('hostile-network'),
    '--root',
    root,
    '--json',
  ]);
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      out.trim().startsWith('{') ? resolve(out) : reject(new Error(`fed launch exited ${code}: ${err}${out}`)),
    );
  });
  const result = JSON.parse(stdout) as LaunchResult;
  return { root, result, transcript: readFileSync(result.lastRun.transcriptPath, 'utf8') };
}

/** The socket families the sandbox makes (socket-families.py); every other is refused by its seccomp filter. */
const MADE_FAMILIES = ['inet', 'inet6', 'netlink route'];
const REFUSED_FAMILIES = [
  'unix',
  'vsock',
  'packet',
  'alg',
  'netlink audit',
  'netlink kobject uevent',
  'bluetooth',
  'key',
  'tipc',
  'rds',
  'xdp',
  'can',
  'appletalk',
  'x25',
  'llc',
  'rxrpc',
  'kcm',
  'qipcrtr',
  'smc',
  'mctp',
];
const hasPython = existsSync('/usr/bin/python3');
const FAMILIES_SUITE = 'the socket family tests of the network policy (need bwrap and the system Python)';
/** What the socket family tests lack: bwrap, or the system Python that makes any socket it is asked for. */
const familiesMissing =
  bubblewrapMissing ?? (hasPython ? undefined : '/usr/bin/python3 is missing (apt-get install python3)');

describe.each(LAUNCHERS)('a sandboxed agent launched by $label, its network a policy', (launcher) => {
  let servers: HostServers | undefined;
  let launching: ReturnType<typeof launchNetwork> | undefined;
  /** The one launch the tests below read, made by the first of them (its temp folders are a test's). */
  const launched = () => {
    launching ??= startServers().then((started) => launchNetwork((servers = started), launcher));
    return launching;
  };
  afterAll(() => {
    if (!servers) return;
    for (const server of [servers.allowed, servers.other, servers.own, servers.tls, servers.unix]) server.close();
    servers.udp.close();
    servers.dns.close();
  });

  it.skipIf(skipWithoutBubblewrap(SUITE))(
    'reaches the host its policy lists, through the proxy; every other way out is refused and recorded (needs bwrap)',
    async () => {
      const run = await launched();
      await checkLaunch(servers!, run);
    },
    120_000,
  );

  it.skipIf(skipWithout(FAMILIES_SUITE, familiesMissing)).each(MADE_FAMILIES)(
    'makes a socket of the family %s (needs bwrap)',
    async (name) => {
      expect((await launched()).transcript).toContain(`family ${name}: made\n`);
    },
    120_000,
  );
  it.skipIf(skipWithout(FAMILIES_SUITE, familiesMissing)).each(REFUSED_FAMILIES)(
    'is refused a socket of the family %s by its seccomp filter (needs bwrap)',
    async (name) => {
      expect((await launched()).transcript).toContain(`family ${name}: refused (Operation not permitted)\n`);
    },
    120_000,
  );
});

async function checkLaunch(
  servers: HostServers,
  { root, result, transcript }: Awaited<ReturnType<typeof launchNetwork>>,
): Promise<void> {
  const allowed = portOf(servers.allowed);
  const tls = portOf(servers.tls);
  expect(transcript).toContain(`reached localhost:${allowed} through the proxy: hello from the allowed server`);
  // A port of this machine's loopback the policy lists is forwarded into the sandbox's own (a local model server).
  expect(transcript).toContain(`reached 127.0.0.1:${allowed} directly, forwarded: hello from the allowed server`);
  const escapes = [...transcript.matchAll(/^escape (.*)$/gm)].map((match) => match[1]!);
  expect(escapes.length, transcript).toBeGreaterThanOrEqual(9);
  expect(escapes.filter((line) => line.endsWith('ESCAPED'))).toEqual([]);
  // Unix socket pairs (with the system's Python): a datagram one refused, a seqpacket one reaching only its peer.
  if (hasPython) {
    expect(transcript).toContain('escape a datagram Unix socket pair: refused (Operation not permitted)');
    expect(transcript).toContain(`a seqpacket Unix socket pair, sent to ${servers.unixPath}: its peer got exfiltrated`);
  }
  // What only the host can tell: nothing arrived but the one ClientHello that named the tunnel's host.
  expect(servers.seen).toMatchObject({ other: 0, own: 0, udp: 0, dns: 0, unix: 0 });
  expect(servers.seen.hellos).toHaveLength(1);
  expect(servers.seen.hellos[0]!.includes(Buffer.from('localhost'))).toBe(true);
  expect(result.outcome).toBe('complete');
  const hosts = result.lastRun.network!.hosts;
  expect(hosts).toContainEqual(
    expect.objectContaining({ host: 'localhost', port: allowed, allowed: true, bytesDown: expect.any(Number) }),
  );
  expect(hosts.find((h) => h.host === 'localhost' && h.port === allowed && h.allowed)!.bytesDown).toBeGreaterThan(0);
  expect(hosts).toContainEqual(
    expect.objectContaining({ host: 'localhost', port: portOf(servers.other), allowed: false }),
  );
  expect(hosts).toContainEqual(expect.objectContaining({ host: '127.0.0.1', port: allowed, allowed: false }));
  expect(hosts).toContainEqual(expect.objectContaining({ host: '127.0.0.1', port: allowed, allowed: true }));
  expect(hosts).toContainEqual(
    expect.objectContaining({
      host: 'localhost',
      port: tls,
      allowed: false,
      reason: expect.stringContaining('TLS server name "evil.example"'),
    }),
  );
  expect(result.lastRun.network!.policy).toBe(`allow: localhost:${allowed}, localhost:${tls}`);
  // fed runs --team lists what the run reached, the refused hosts named.
  const runs = await runFed(['runs', '--team', 'docs', '--root', root]);
  expect(runs.code, runs.stderr).toBe(0);
  expect(runs.stdout).toContain(
    `network (sandboxed runs):\n  docs ${result.lastRun.runId}: network allow: localhost:${allowed}, localhost:${tls} — `,
  );
  expect(runs.stdout).toMatch(/ — \d+ hosts, \d+ refused: .*localhost:\d+/);
}

describe('fed launch of a sandboxed agent whose network is a policy', () => {
  it.skipIf(skipWithoutBubblewrap(SUITE))('says in a line what the run reached (needs bwrap)', async () => {
    const { root } = await federationWithMission();
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { network: 'none' } }));
    const launched = await runFed(['launch', '--team', 'docs', '--agent', fakeAgent('complete'), '--root', root], {
      cwd: root,
      timeoutMs: 120_000,
    });
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stdout).toMatch(/^run: .*sandboxed/m);
    expect(launched.stdout).toContain('\nnetwork none (no host) — no connection\n');
  });
});
