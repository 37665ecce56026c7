import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  AgentBroker,
  brokerAddress,
  type AgentBrokerOptions,
  encodeFrame,
  FRAME,
  FrameReader,
  getTeam,
  MAX_FRAME_BYTES,
  readRegistry,
  runCli,
  socketAddress,
  teamEventApplier,
} from 'fed/testing';
import { FedError, listSignals, openFederation, RefusedError, runActors, sendSignal, viewLifecycle } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { killEach, startFixture, waitFor } from '../helpers/fixture-process.js';
import { signalFederation } from '../helpers/signal-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

// The broker runs in the launcher: an error thrown from one of its socket or child handlers would bring the
// launcher down. Here vitest would catch it beside the test, so each test fails on one.
const uncaught: unknown[] = [];
const recordUncaught = (error: unknown) => void uncaught.push(error);
beforeEach(() => {
  uncaught.length = 0;
  process.on('uncaughtException', recordUncaught);
  process.on('unhandledRejection', recordUncaught);
});
afterEach(() => {
  process.off('uncaughtException', recordUncaught);
  process.off('unhandledRejection', recordUncaught);
  expect(uncaught).toEqual([]);
});

interface BrokerSetup {
  applyEvent?: AgentBrokerOptions['applyEvent'];
  runInProcess?: AgentBrokerOptions['runInProcess'];
  env?: NodeJS.ProcessEnv;
  listen?: AgentBrokerOptions['listen'];
  requestTimeoutMs?: number;
  tokenTimeoutMs?: number;
  /** Lets go whatever would keep close() waiting (events the test holds). */
  beforeClose?: () => void;
}

/** A broker for `root`, closed when the test ends; its events answered `<TYPE> applied` unless `applyEvent` is given. */
async function startBroker(root: string, setup: BrokerSetup = {}): Promise<AgentBroker> {
  const broker = await AgentBroker.start({
    listen: setup.listen ?? { socketPath: join(root, '.fed', 'teams', 'docs', '.fed', 'launch', 'broker.sock') },
    root,
    env: setup.env ?? process.env,
    applyEvent: setup.applyEvent ?? (async ({ type }) => ({ stdout: `${type} applied\n`, warnings: [] })),
    requestTimeoutMs: setup.requestTimeoutMs,
    tokenTimeoutMs: setup.tokenTimeoutMs,
    runInProcess: setup.runInProcess,
  });
  onTestFinished(() => {
    setup.beforeClose?.();
    return broker.close();
  });
  return broker;
}

/** The broker of team `docs` in a fresh federation (the built fed runs its commands; its events it applies itself). */
async function docsBroker(setup: BrokerSetup = {}): Promise<{ root: string; broker: AgentBroker }> {
  const { root } = await signalFederation(['docs']);
  const env = { ...process.env, FED_ROOT: root, FED_TEAM: 'docs', FED_TELEMETRY_ENABLED: 'false', ...setup.env };
  const fed = openFederation(root, { env });
  const broker = await startBroker(root, {
    applyEvent: teamEventApplier(fed, 'docs', fed.config, env),
    ...setup,
    env,
  });
  return { root, broker };
}

/** An applyEvent that holds each event until the test lets it go (`<TYPE> applied`): `held` are those waiting. */
function heldEvents(): {
  held: { type: string; release: () => void }[];
  applyEvent: AgentBrokerOptions['applyEvent'];
  releaseAll: () => void;
} {
  const held: { type: string; release: () => void }[] = [];
  return {
    held,
    applyEvent: ({ type }) =>
      new Promise((resolve) =>
        held.push({ type, release: () => resolve({ stdout: `${type} applied\n`, warnings: [] }) }),
      ),
    releaseAll: () => {
      for (const event of held.splice(0)) event.release();
    },
  };
}

interface Frame {
  type: number;
  text: string;
}

/**
 * A connection to the broker, as any process that reaches the socket may make one (through socketAddress,
 * as the agent's fed does): `frames` are sent once connected; `answer` is every frame that came back, once
 * the connection closed.
 */
function connectTo(
  broker: AgentBroker,
  frames: Buffer[],
  options: { allowHalfOpen?: boolean; onFrame?: (got: Frame[], socket: Socket) => void } = {},
): { socket: Socket; answer: Promise<Frame[]> } {
  const target = brokerAddress(broker.agentEnv().FED_BROKER!);
  const socket = connect({ ...target.options, allowHalfOpen: options.allowHalfOpen ?? false });
  onTestFinished(() => void socket.destroy());
  const answer = new Promise<Frame[]>((resolve, reject) => {
    const reader = new FrameReader();
    const got: Frame[] = [];
    socket.on('connect', () => {
      target.release();
      for (const frame of frames) socket.write(frame);
    });
    socket.on('data', (chunk: Buffer) => {
      for (const { type, payload } of reader.push(chunk)) got.push({ type, text: payload.toString() });
      options.onFrame?.(got, socket);
    });
    socket.on('error', (error) => {
      target.release();
      reject(error);
    });
    socket.on('close', () => resolve(got));
  });
  return { socket, answer };
}

/** What the frames of an answer say, as the agent's fed prints them and exits. */
function outcome(frames: Frame[]): { stdout: string; stderr: string; code: number | undefined } {
  const got = { stdout: '', stderr: '', code: undefined as number | undefined };
  for (const { type, text } of frames) {
    if (type === FRAME.STDOUT) got.stdout += text;
    if (type === FRAME.STDERR) got.stderr += text;
    if (type === FRAME.EXIT) got.code = (JSON.parse(text) as { code: number }).code;
  }
  return got;
}

/** One raw request, as any process that reaches the socket may send it; what came back. */
async function request(
  broker: AgentBroker,
  frames: Buffer[],
  /** The client goes away (its process killed, say) once this holds of what came back. */
  goAwayWhen?: (got: { stderr: string }) => boolean,
): Promise<{ stdout: string; stderr: string; code: number | undefined }> {
  const { answer } = connectTo(broker, frames, {
    onFrame: (got, socket) => {
      if (goAwayWhen?.(outcome(got))) socket.destroy();
    },
  });
  return outcome(await answer);
}

/** `fed signal watch` through the broker, once it watches (it runs until stopped); `ended` once it answered. */
async function startWatch(
  broker: AgentBroker,
  root: string,
): Promise<{ answer: Promise<{ stdout: string; stderr: string; code: number | undefined }>; ended: () => boolean }> {
  let watching = false;
  let ended = false;
  const answer = request(broker, ask(broker.token, ['signal', 'watch'], root), (got) => {
    watching ||= got.stderr.includes('watching');
    return false;
  });
  void answer.then(() => (ended = true));
  await waitFor(() => watching || ended, 20_000, 'the watch to start');
  expect(ended).toBe(false);
  return { answer, ended: () => ended };
}

/** An EVENT request, as the built-in agent sends it. */
const event = (token: string, type: string, data: Record<string, unknown>) => [
  encodeFrame(FRAME.EVENT, JSON.stringify({ token, type, data })),
];

const ask = (token: string, argv: string[], cwd: string) => [
  encodeFrame(FRAME.REQUEST, JSON.stringify({ token, argv, cwd, stdin: false })),
  encodeFrame(FRAME.STDIN_END, ''),
];

/** The `fed` processes this test process started, by their arguments. */
function runningFed(args: string): boolean {
  return fedPids(args).length > 0;
}

/** Their process ids. */
function fedPids(args: string): number[] {
  const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return children
    .split('\n')
    .filter((line) => line.includes('fed.cjs') && line.includes(args))
    .map((line) => Number.parseInt(line.trim(), 10));
}

describe("the broker of a sandboxed agent (the launcher's side)", () => {
  it('runs an allowed command as the team, in its working directory, and returns its output and exit code', async () => {
    const { root, broker } = await docsBroker();
    const answer = await request(broker, ask(broker.token, ['team', 'show', '--json'], root));
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(answer.stdout)).toMatchObject({ domainId: 'docs' });
  });

  it("listens on a free port of the machine's loopback for a sandbox without a network of its own, closing it with the broker", async () => {
    const { root, broker } = await docsBroker({ listen: 'loopback' });
    const named = broker.agentEnv().FED_BROKER!;
    expect(named).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const answer = await request(broker, ask(broker.token, ['team', 'show', '--json'], root));
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(answer.stdout)).toMatchObject({ domainId: 'docs' });
    await broker.close();
    const refused = connect(brokerAddress(named).options);
    await expect(once(refused, 'connect')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it("runs a one-shot command in the launcher's own process when handed runCli, as the team, where the agent is (issue 48)", async () => {
    const ran: { argv: readonly string[]; cwd: string; team: string | undefined }[] = [];
    const { root, broker } = await docsBroker({
      runInProcess: (argv, io) => {
        ran.push({ argv, cwd: io.cwd, team: io.env.FED_TEAM });
        return runCli(argv, io);
      },
    });
    const workspace = join(root, '.fed', 'teams', 'docs');
    const direct = await request(broker, ask(broker.token, ['team', 'list', '--json'], workspace));
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ domainId: 'docs' })]));
    expect(ran).toEqual([{ argv: ['team', 'list', '--json'], cwd: workspace, team: 'docs' }]);
    // As a team, still: the caller rules hold in-process too.
    expect(await request(broker, ask(broker.token, ['signal', 'ack', '--all', '--team', 'meta'], root))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('this command runs as team "docs"'),
    });
    // What runs until stopped, or reads standard input, still gets a process of its own.
    const watch = await startWatch(broker, root);
    expect(watch.ended()).toBe(false);
    expect(ran.map((r) => r.argv[1])).toEqual(['list', 'ack']);
  });

  it('refuses a malformed request, a wrong token, and a --body-file it would read outside the sandbox', async () => {
    const { root, broker } = await docsBroker();
    expect(await request(broker, [encodeFrame(FRAME.REQUEST, '{"argv": 1}')])).toEqual({
      stdout: '',
      stderr: 'fed: the broker received a malformed request\n',
      code: 2,
    });
    expect(await request(broker, ask('0'.repeat(64), ['team', 'list'], root))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('refused the request: FED_BROKER_TOKEN is not the token of the agent it serves'),
    });
    const environ = ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'x'];
    expect(
      await request(broker, ask(broker.token, [...environ, '--body-file', '/proc/self/environ'], root)),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--body-file /proc/self/environ: the broker reads no files for an agent'),
    });
  });

  it('stops a command whose client went away, and removes its socket when closed', async () => {
    const { root, broker } = await docsBroker();
    let watching = false;
    const gone = request(broker, ask(broker.token, ['signal', 'watch'], root), (got) => {
      if (got.stderr.includes('watching')) watching = runningFed('signal watch');
      return watching;
    });
    // It was running until the client went: no exit code came back.
    expect(await gone).toEqual({ stdout: '', stderr: expect.stringContaining('watching'), code: undefined });
    expect(watching).toBe(true);
    await waitFor(() => !runningFed('signal watch'), 15_000, 'the watch to be stopped');
    const socket = broker.agentEnv().FED_BROKER!;
    await broker.close();
    expect(existsSync(socket)).toBe(false);
  });

  it('carries a long-lived fed mcp both ways, as the team — its news too — and stops the server when its client goes', async () => {
    const { root, broker } = await docsBroker();
    // The agent's fed inside the sandbox: it knows only the broker (no FED_ROOT, no FED_TEAM), in the team's workspace.
    const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env as Record<string, string>;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FED_BIN, 'mcp'],
      cwd: join(root, '.fed', 'teams', 'docs'),
      env: { ...env, ...broker.agentEnv(), FED_TELEMETRY_ENABLED: 'false' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agent-broker-test', version: '1.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fed_whoami');
    // Calls well apart: no timeout of the broker's ends a session that waits between requests.
    for (let call = 0; call < 3; call++) {
      const whoami = (await client.callTool({ name: 'fed_whoami', arguments: {} })) as CallToolResult;
      expect(whoami.isError).toBeFalsy();
      const [content] = whoami.content;
      expect(content?.type === 'text' && JSON.parse(content.text)).toMatchObject({ team: 'docs' });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // A signal that arrives meanwhile is announced through the broker, unasked: the output streams too.
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    // A resource the server does not have is refused, as resources/read refuses it.
    await expect(client.subscribeResource({ uri: 'fed://nope' })).rejects.toThrow(
      'no resource "fed://nope" to subscribe to: this server has fed://inbox (resources/list)',
    );
    await client.subscribeResource({ uri: 'fed://inbox' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'pause now' });
    await waitFor(() => updates.length > 0, 10_000, 'a resources/updated notification through the broker');
    expect(updates[0]).toBe('fed://inbox');
    // The server runs in the broker, outside: a fed mcp besides the agent's own fed (the client's child).
    const brokered = () => fedPids(' mcp').filter((pid) => pid !== transport.pid);
    expect(brokered()).toHaveLength(1);
    await client.close();
    await waitFor(() => brokered().length === 0, 15_000, 'the broker to stop the server');
  });

  it("applies the agent's event itself, as fed event does for the team, and answers as fed event would", async () => {
    const { root, broker } = await docsBroker();
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document the project' });
    await runActors(openFederation(root), { once: true, team: 'docs' });
    const planned = await request(broker, event(broker.token, 'PLAN_READY', { sources: ['README.md'] }));
    expect(planned).toEqual({ stdout: 'docs: preparing → scanning (PLAN_READY)\n', stderr: '', code: 0 });
    // No fed process on the launcher's side: the event went through the same path, journal and report included.
    expect(runningFed('event')).toBe(false);
    const lifecycle = await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'docs'));
    expect(lifecycle.recent.at(-1)).toMatchObject({ event: 'PLAN_READY', from: 'preparing', to: 'scanning' });
    const reports = (await listSignals(openFederation(root), { team: 'meta' })).signals.map((s) => s.message);
    expect(reports).toContainEqual(expect.objectContaining({ from: 'docs', type: 'report' }));
    // What fed event refuses, refused the same way (exit 2, fed's message); the state is as it was.
    expect(await request(broker, event(broker.token, 'PLAN_READY', { sources: ['README.md'] }))).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^fed: .*PLAN_READY is not accepted in scanning/),
    });
    expect(await request(broker, event(broker.token, 'SCAN_COMPLETE', { type: 'FAIL' }))).toMatchObject({
      code: 2,
      stderr: 'fed: --data must not contain "type": the event type is the <EVENT> argument\n',
    });
    // Only this agent's: another token, or a malformed request, is refused before anything is applied.
    expect(await request(broker, event('0'.repeat(64), 'SCAN_COMPLETE', { filesRead: 1 }))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('FED_BROKER_TOKEN is not the token of the agent it serves'),
    });
    expect(await request(broker, [encodeFrame(FRAME.EVENT, '{"type": 1}')])).toEqual({
      stdout: '',
      stderr: 'fed: the broker received a malformed request\n',
      code: 2,
    });
    expect(await request(broker, event(broker.token, 'SCAN_COMPLETE', { filesRead: 1 }))).toEqual({
      stdout: 'docs: scanning → distilling (SCAN_COMPLETE)\n',
      stderr: '',
      code: 0,
    });
  });

  it('tells the built-in agent its event is on its way only once the request has left it', async () => {
    const { root } = await signalFederation(['docs']);
    const arrived = join(root, 'arrived');
    const verdict = join(root, 'verdict');
    const broker = await AgentBroker.start({
      listen: { socketPath: join(root, '.fed', 'teams', 'docs', '.fed', 'launch', 'broker.sock') },
      root,
      env: process.env,
      applyEvent: async ({ type }) => {
        writeFileSync(arrived, type);
        return { stdout: `docs: ${type} applied\n`, warnings: [] };
      },
    });
    onTestFinished(() => broker.close());
    // The sender, told its event is on its way, blocks its own event loop until the launcher has it: a
    // request still waiting for that loop would arrive only after the 10 s it gives up.
    const sender = startFixture('broker-event-sender.mjs', [
      broker.agentEnv().FED_BROKER!,
      broker.token,
      arrived,
      verdict,
    ]);
    const { code, stdout, stderr } = await sender.done;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(verdict, 'utf8')).toBe('arrived while busy');
    expect(JSON.parse(stdout)).toEqual({ stdout: 'docs: PLAN_READY applied\n', stderr: '', code: 0 });
  });

  it('refuses fed mcp --meta from an agent: meta is not its to serve', async () => {
    const { root, broker } = await docsBroker();
    for (const argv of [
      ['mcp', '--meta'],
      ['--root', root, 'mcp', '--meta'],
    ])
      expect(await request(broker, ask(broker.token, argv, root))).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining("fed mcp --meta serves meta's side"),
      });
  });

  it('runs the command where the agent is when that is in the federation, else at the root', async () => {
    const { root, broker } = await docsBroker();
    mkdirSync(join(root, 'sub'));
    const outside = tempDir();
    // A relative --root is resolved where the command runs, by the check and by fed alike: `..` from
    // sub/, and `.` from the root, are the federation.
    const show = (rootOption: string, cwd: string) =>
      request(broker, ask(broker.token, ['--root', rootOption, 'team', 'show', '--json'], cwd));
    const answers = [await show('..', join(root, 'sub')), await show('.', 'sub'), await show('.', outside)];
    for (const answer of answers) {
      expect(answer).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(answer.stdout)).toMatchObject({ domainId: 'docs' });
    }
  });

  it('refuses a malformed request of every shape, and any first frame but a request, running nothing', async () => {
    const { root, broker } = await docsBroker();
    const { token } = broker;
    const malformed = { stdout: '', stderr: 'fed: the broker received a malformed request\n', code: 2 };
    const argv = ['team', 'show', '--json'];
    const requests: unknown[] = [
      null,
      [],
      { token: 1, argv, cwd: root, stdin: false },
      { token, argv: 'team show', cwd: root, stdin: false },
      { token, argv: ['team', 1], cwd: root, stdin: false },
      { token, argv, cwd: 1, stdin: false },
      { token, argv, cwd: root, stdin: 'no' },
      { token, argv, cwd: root },
    ];
    const events: unknown[] = [
      null,
      { token: 1, type: 'PLAN_READY', data: {} },
      { token, type: 1, data: {} },
      { token, type: 'PLAN_READY', data: null },
      { token, type: 'PLAN_READY', data: [] },
      { token, type: 'PLAN_READY', data: 'sources' },
      { token, type: 'PLAN_READY' },
    ];
    const frames = [
      encodeFrame(FRAME.REQUEST, 'team show'),
      encodeFrame(FRAME.EVENT, 'PLAN_READY'),
      ...requests.map((value) => encodeFrame(FRAME.REQUEST, JSON.stringify(value))),
      ...events.map((value) => encodeFrame(FRAME.EVENT, JSON.stringify(value))),
      // A well-formed request, but not in a request's frame.
      encodeFrame(FRAME.STDIN, JSON.stringify({ token, argv, cwd: root, stdin: false })),
      encodeFrame(FRAME.STDIN_END, ''),
    ];
    for (const frame of frames) expect(await request(broker, [frame]), String(frame.subarray(5))).toEqual(malformed);
    expect(runningFed('team show')).toBe(false);
  });

  it('refuses a token of another length as it refuses a wrong one', async () => {
    const { root, broker } = await docsBroker();
    for (const token of ['', 'x', `${broker.token}0`, broker.token.slice(1)])
      for (const frames of [ask(token, ['team', 'show'], root), event(token, 'PLAN_READY', {})])
        expect(await request(broker, frames)).toEqual({
          stdout: '',
          stderr: `fed: the broker at ${broker.agentEnv().FED_BROKER} refused the request: FED_BROKER_TOKEN is not the token of the agent it serves\n`,
          code: 2,
        });
  });

  it('exits 1, not 2, for a command the system cannot start: the failure is the broker’s, not the agent’s', async () => {
    const { root, broker } = await docsBroker();
    // An argument longer than the kernel takes (128 KiB): the process cannot be made.
    expect(await request(broker, ask(broker.token, ['team', 'show', 'x'.repeat(200_000)], root))).toEqual({
      stdout: '',
      stderr: 'fed: spawn E2BIG\n',
      code: 1,
    });
  });

  it('answers 128 + its number for a command a signal ended', async () => {
    const { root, broker } = await docsBroker();
    const watch = await startWatch(broker, root);
    const [pid] = fedPids('signal watch');
    killEach([pid!]);
    expect(await watch.answer).toMatchObject({ code: 128 + 9 });
  });

  it('streams standard input to a command while it runs, ignoring any other frame, until STDIN_END', async () => {
    const { root, broker } = await docsBroker();
    const send = ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'piped', '--body-file', '-'];
    const answer = await request(broker, [
      encodeFrame(FRAME.REQUEST, JSON.stringify({ token: broker.token, argv: send, cwd: root, stdin: true })),
      encodeFrame(FRAME.STDIN, 'hello '),
      // Only the first request of a connection counts: another, or an event, changes nothing.
      ...ask(broker.token, ['team', 'show'], root).slice(0, 1),
      ...event(broker.token, 'PLAN_READY', { sources: ['README.md'] }),
      encodeFrame(FRAME.STDIN, 'world'),
      encodeFrame(FRAME.STDIN_END, ''),
    ]);
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(readFileSync(answer.stdout.trim(), 'utf8'))).toMatchObject({
      subject: 'piped',
      body: 'hello world',
    });
  });

  it('gives a command that asked for no standard input an empty one, whatever comes after', async () => {
    const { root, broker } = await docsBroker();
    const send = ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'empty', '--body-file', '-'];
    // No STDIN_END: the command must not wait for one.
    const answer = await request(broker, [
      encodeFrame(FRAME.REQUEST, JSON.stringify({ token: broker.token, argv: send, cwd: root, stdin: false })),
      encodeFrame(FRAME.STDIN, 'not asked for'),
    ]);
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(readFileSync(answer.stdout.trim(), 'utf8'))).toMatchObject({ subject: 'empty', body: '' });
  });

  it('takes in its stride standard input the command never reads (its pipe broken once it ends)', async () => {
    const { root, broker } = await docsBroker();
    // More than a pipe holds: what is still to write when the command exits fails (EPIPE), in the broker.
    const input = Array.from({ length: 4 }, () => encodeFrame(FRAME.STDIN, Buffer.alloc(64 * 1024, 'x')));
    const answer = await request(broker, [
      encodeFrame(
        FRAME.REQUEST,
        JSON.stringify({ token: broker.token, argv: ['team', 'show', '--json'], cwd: root, stdin: true }),
      ),
      ...input,
    ]);
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(answer.stdout)).toMatchObject({ domainId: 'docs' });
  });

  it('runs its commands with no code cache, which the agent could plant compiled code in', async () => {
    const cache = tempDir();
    const planted = join(cache, 'planted');
    const { root, broker } = await docsBroker({ env: { FED_CODE_CACHE: planted, XDG_CACHE_HOME: cache } });
    expect(await request(broker, ask(broker.token, ['team', 'show', '--json'], root))).toMatchObject({ code: 0 });
    // Neither the cache the launcher was given nor the default one (under XDG_CACHE_HOME) was made.
    expect(readdirSync(cache)).toEqual([]);
  });

  it('drops a connection that sends a frame over the size limit, answering nothing', async () => {
    const broker = await startBroker(tempDir());
    const head = Buffer.alloc(5);
    head.writeUInt8(FRAME.REQUEST, 0);
    head.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(await connectTo(broker, [head]).answer).toEqual([]);
  });

  it('takes in its stride a peer that goes away without reading its answer', async () => {
    const { root, broker } = await docsBroker();
    const target = socketAddress(broker.agentEnv().FED_BROKER!);
    // Never reading: the answer stays unread, and going away then resets the connection on the broker's side.
    const peer = connect(target.address).pause();
    onTestFinished(() => void peer.destroy());
    await new Promise<void>((resolve) =>
      peer.on('connect', () => {
        target.release();
        peer.write(ask('0'.repeat(64), ['team', 'list'], root)[0]!, () => resolve());
      }),
    );
    const refused = { code: 2, stderr: expect.stringContaining('is not the token of the agent it serves') };
    // A request answered after the peer's went out is answered after it: the peer's answer is waiting.
    expect(await request(broker, ask('0'.repeat(64), ['team', 'list'], root))).toMatchObject(refused);
    peer.destroy();
    // And one answered after the reset, after the broker saw it: the broker is there, and nothing was thrown.
    expect(await request(broker, ask('0'.repeat(64), ['team', 'list'], root))).toMatchObject(refused);
  });

  it('runs at most 32 commands and events at once, refusing more until one ends', async () => {
    const events = heldEvents();
    const { root, broker } = await docsBroker({ applyEvent: events.applyEvent, beforeClose: events.releaseAll });
    const full = {
      stdout: '',
      stderr: 'fed: the broker already runs 32 commands for this agent; wait for them to end\n',
      code: 2,
    };
    const show = () => request(broker, ask(broker.token, ['team', 'show', '--json'], root));
    const answers = Array.from({ length: 31 }, (_, i) => request(broker, event(broker.token, `E${i}`, {})));
    await waitFor(() => events.held.length === 31, 15_000, '31 events being applied');
    // The 32nd: a command.
    await startWatch(broker, root);
    expect(await request(broker, event(broker.token, 'ONE_MORE', {}))).toEqual(full);
    expect(await show()).toEqual(full);
    expect(events.held.map(({ type }) => type)).not.toContain('ONE_MORE');
    // One ends: there is room for one more, counted until it ends too.
    events.held.shift()!.release();
    expect(await answers[0]).toEqual({ stdout: 'E0 applied\n', stderr: '', code: 0 });
    expect(await show()).toMatchObject({ code: 0, stderr: '' });
    let refused = false;
    void request(broker, event(broker.token, 'LAST', {})).then(({ code }) => (refused = code === 2));
    await waitFor(() => refused || events.held.some(({ type }) => type === 'LAST'), 15_000, 'the last event');
    expect(refused).toBe(false);
    expect(await show()).toEqual(full);
  });

  it('closes a connection that sends no request, or trickles it, when its time is up, answering nothing', async () => {
    const broker = await startBroker(tempDir(), { requestTimeoutMs: 1_500 });
    const idle = connectTo(broker, []);
    const trickling = connectTo(broker, []);
    // A byte at a time, each well within the time: the time bounds the whole request.
    const bytes = event(broker.token, 'PLAN_READY', { sources: ['README.md'] })[0]!;
    let sent = 0;
    const trickle = setInterval(() => {
      if (trickling.socket.writable) trickling.socket.write(bytes.subarray(sent, ++sent));
    }, 50);
    onTestFinished(() => clearInterval(trickle));
    // A byte written just as the broker closed the connection fails (EPIPE, ECONNRESET): that is the close.
    // Heard from the start: the trickling connection may be closed before the idle one is.
    const closedUnder = (error: NodeJS.ErrnoException) =>
      ['EPIPE', 'ECONNRESET'].includes(error.code ?? '') ? [] : Promise.reject(error);
    const trickled = trickling.answer.catch(closedUnder);
    expect(await idle.answer).toEqual([]);
    expect(await trickled).toEqual([]);
    expect(sent).toBeLessThan(bytes.length);
  });

  it("holds at most 64 of the agent's connections, refusing the 65th by name, and frees those kept past their answer when their time is up", async () => {
    const broker = await startBroker(tempDir(), { requestTimeoutMs: 3_000 });
    // The agent's own connections, each kept after its answer.
    let answered = 0;
    for (let i = 0; i < 64; i++)
      connectTo(broker, event(broker.token, 'PLAN_READY', {}), {
        allowHalfOpen: true,
        onFrame: (got) => void (answered += got.at(-1)?.type === FRAME.EXIT ? 1 : 0),
      });
    await waitFor(() => answered === 64, 15_000, 'every request answered');
    const late = async () => outcome(await connectTo(broker, event(broker.token, 'LATE', {})).answer.catch(() => []));
    expect(await late()).toEqual({
      stdout: '',
      stderr: `fed: the broker already holds 64 connections of this agent; let its finished commands go (they are closed 10 s after their answer)\n`,
      code: 2,
    });
    await waitFor(async () => (await late()).code === 0, 20_000, 'a connection to be free again');
  });

  it('authenticates first: a hog of 1,000 connections without the token never keeps the agent out (issue 48)', async () => {
    const { root, broker } = await docsBroker({
      tokenTimeoutMs: 60_000,
      applyEvent: async ({ type }) => ({ stdout: `${type} applied\n`, warnings: [] }),
    });
    const hog: Socket[] = [];
    // Each connected, or refused by a full backlog: as many as the hog could get.
    let hogTried = 0;
    for (let i = 0; i < 1_000; i++) {
      const socket = connect(broker.agentEnv().FED_BROKER!);
      socket.once('connect', () => void hogTried++);
      socket.once('error', () => void hogTried++);
      hog.push(socket);
    }
    onTestFinished(() => hog.forEach((socket) => socket.destroy()));
    await waitFor(() => hogTried === 1_000, 20_000, 'the hog to open its connections');
    // Some of them still wrong, a stranger's token: refused at once, counted nowhere.
    for (const socket of hog.slice(-10)) socket.write(event('0'.repeat(64), 'PLAN_READY', {})[0]!);
    // As the agent's fed connects: a connect a full backlog refused (EAGAIN) is tried again a moment later.
    const asAgent = async (frames: Buffer[]): Promise<{ code: number | undefined }> => {
      for (;;) {
        try {
          return await request(broker, frames);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    };
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => asAgent(event(broker.token, `E${i}`, {}))),
      ...Array.from({ length: 5 }, () => asAgent(ask(broker.token, ['team', 'list', '--json'], root))),
    ]);
    expect(answers.map((answer) => answer.code)).toEqual(Array(25).fill(0));
  });

  it("authenticates first on the sandbox's loopback too: a hog of 1,000 connections there never keeps the agent out (issues 48, 49)", async () => {
    const { root, broker } = await docsBroker({
      tokenTimeoutMs: 60_000,
      applyEvent: async ({ type }) => ({ stdout: `${type} applied\n`, warnings: [] }),
    });
    // As the launcher serves a sandbox with a network policy: the listener the sandbox handed up (network/).
    const listener = createServer();
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    onTestFinished(() => void listener.close());
    broker.serveFrom(listener);
    const port = (listener.address() as AddressInfo).port;
    const hog: Socket[] = [];
    let hogMade = 0;
    let hogTried = 0;
    for (let i = 0; i < 1_000; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => void (hogMade++, hogTried++));
      socket.once('error', () => void hogTried++);
      hog.push(socket);
    }
    onTestFinished(() => hog.forEach((socket) => socket.destroy()));
    await waitFor(() => hogTried === 1_000, 20_000, 'the hog to open its connections');
    expect(hogMade).toBe(1_000);
    // The agent's fed, as it connects to tcp://127.0.0.1:<port>.
    const asAgent = (frames: Buffer[]) =>
      new Promise<number | undefined>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => frames.forEach((frame) => socket.write(frame)));
        onTestFinished(() => void socket.destroy());
        const reader = new FrameReader();
        const got: Frame[] = [];
        socket.on('data', (chunk: Buffer) => {
          for (const { type, payload } of reader.push(chunk)) got.push({ type, text: payload.toString() });
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(outcome(got).code));
      });
    const codes = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => asAgent(event(broker.token, `E${i}`, {}))),
      ...Array.from({ length: 5 }, () => asAgent(ask(broker.token, ['team', 'list', '--json'], root))),
    ]);
    expect(codes).toEqual(Array(25).fill(0));
  });

  it("closes a connection that shows no token in its first frame within its time, and one that shows a stranger's at once", async () => {
    const broker = await startBroker(tempDir(), { tokenTimeoutMs: 300, requestTimeoutMs: 60_000 });
    const started = Date.now();
    expect(await connectTo(broker, []).answer).toEqual([]);
    expect(Date.now() - started).toBeLessThan(30_000);
    // Answered, then closed by the broker: the connection ends though the peer keeps its side.
    expect(outcome(await connectTo(broker, event('0'.repeat(64), 'PLAN_READY', {})).answer)).toMatchObject({
      code: 2,
    });
  });

  it('answers bad input with exit 2, as fed does: a NUL byte in an argument or the working directory, a working directory that is no folder', async () => {
    const { root, broker } = await docsBroker();
    const fifo = join(root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await request(broker, ask(broker.token, ['team', 'show', 'do\0cs'], root))).toEqual({
      stdout: '',
      stderr:
        'fed: "do\\\\0cs": an argument or working directory holds a NUL byte, which no command line can carry; remove it\n',
      code: 2,
    });
    expect((await request(broker, ask(broker.token, ['team', 'list'], `${root}\0`))).code).toBe(2);
    expect(await request(broker, ask(broker.token, ['team', 'list'], fifo))).toEqual({
      stdout: '',
      stderr: `fed: ${fifo}: the working directory is not a folder (a FIFO, a file or a socket); run fed from a folder of the federation\n`,
      code: 2,
    });
  });

  it('never cuts a command or an event short, however long past the time for a request they run', async () => {
    const events = heldEvents();
    const { root, broker } = await docsBroker({
      applyEvent: events.applyEvent,
      beforeClose: events.releaseAll,
      requestTimeoutMs: 1_500,
    });
    const watch = await startWatch(broker, root);
    const slow = request(broker, event(broker.token, 'SLOW', {}));
    await waitFor(() => events.held.length === 1, 15_000, 'the event to be applied');
    // A connection made after both has had its time once it is closed: theirs, had they one, ran out first.
    expect(await connectTo(broker, []).answer).toEqual([]);
    expect(watch.ended()).toBe(false);
    expect(runningFed('signal watch')).toBe(true);
    events.held.shift()!.release();
    expect(await slow).toEqual({ stdout: 'SLOW applied\n', stderr: '', code: 0 });
  });

  it('answers an event with what it printed and its warnings, sending no empty frame', async () => {
    const broker = await startBroker(tempDir(), {
      applyEvent: async ({ type }) =>
        type === 'WARNED' ? { stdout: 'done\n', warnings: ['slow disk', 'old config'] } : { stdout: '', warnings: [] },
    });
    const frames = async (type: string) =>
      (await connectTo(broker, event(broker.token, type, {})).answer).map((frame) => [frame.type, frame.text]);
    expect(await frames('WARNED')).toEqual([
      [FRAME.STDOUT, 'done\n'],
      [FRAME.STDERR, 'warning: slow disk\nwarning: old config\n'],
      [FRAME.EXIT, '{"code":0}'],
    ]);
    expect(await frames('QUIET')).toEqual([[FRAME.EXIT, '{"code":0}']]);
  });

  it('answers an event that failed with exit 1 and what failed, one refused with exit 2', async () => {
    const failures: Record<string, unknown> = {
      CRASH: new Error('the disk is gone'),
      THROWN_TEXT: 'not an error',
      FAILED: new FedError('FED_EVENT_FAILED', 'the report could not be written', { refusal: false }),
      REFUSED: new RefusedError('AGENT_COMMAND_REFUSED', 'not in this state'),
    };
    const broker = await startBroker(tempDir(), {
      applyEvent: ({ type }) => Promise.reject(failures[type]),
    });
    const answer = (type: string) => request(broker, event(broker.token, type, {}));
    // An error fed does not know is a bug: its stack says where.
    expect(await answer('CRASH')).toEqual({
      stdout: '',
      stderr: expect.stringMatching(/^fed: unexpected error: Error: the disk is gone\n\s+at /),
      code: 1,
    });
    expect(await answer('THROWN_TEXT')).toEqual({
      stdout: '',
      stderr: 'fed: unexpected error: not an error\n',
      code: 1,
    });
    expect(await answer('FAILED')).toEqual({ stdout: '', stderr: 'fed: the report could not be written\n', code: 1 });
    expect(await answer('REFUSED')).toEqual({ stdout: '', stderr: 'fed: not in this state\n', code: 2 });
  });

  it('ignores standard input sent with an event', async () => {
    const events = heldEvents();
    const broker = await startBroker(tempDir(), { applyEvent: events.applyEvent, beforeClose: events.releaseAll });
    const answer = request(broker, [
      ...event(broker.token, 'PLAN_READY', {}),
      encodeFrame(FRAME.STDIN, 'nothing reads this'),
      encodeFrame(FRAME.STDIN_END, ''),
    ]);
    await waitFor(() => events.held.length === 1, 15_000, 'the event to be applied');
    events.releaseAll();
    expect(await answer).toEqual({ stdout: 'PLAN_READY applied\n', stderr: '', code: 0 });
  });

  it('stops the commands still running when closed, drops every connection unanswered, and removes its socket', async () => {
    const { root, broker } = await docsBroker();
    const watch = await startWatch(broker, root);
    const idle = connectTo(broker, []);
    await new Promise((resolve) => idle.socket.once('connect', resolve));
    await broker.close();
    // Dropped, not answered: the watch's exit (killed) never reaches its client.
    expect(await watch.answer).toEqual({ stdout: '', stderr: expect.stringContaining('watching'), code: undefined });
    expect(await idle.answer).toEqual([]);
    await waitFor(() => !runningFed('signal watch'), 15_000, 'the watch to be stopped');
    expect(existsSync(broker.agentEnv().FED_BROKER!)).toBe(false);
  });

  it('listens on a socket only its user can use, making its folders, replacing one a dead launch left', async () => {
    const root = tempDir();
    const made = join(root, 'team', 'launch', 'broker.sock');
    const stale = join(root, 'stale.sock');
    writeFileSync(stale, 'what a launch that died left');
    for (const socketPath of [made, stale]) {
      const broker = await startBroker(root, { listen: { socketPath } });
      expect(statSync(socketPath).isSocket()).toBe(true);
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);
      expect(await request(broker, event(broker.token, 'PLAN_READY', {}))).toMatchObject({ code: 0 });
    }
  });

  it('refuses to start, saying where, when its socket cannot be made', async () => {
    // A folder no one can make a socket in, root included.
    const started = AgentBroker.start({
      listen: { socketPath: '/proc/self/broker.sock' },
      root: tempDir(),
      env: process.env,
      applyEvent: async () => ({ stdout: '', warnings: [] }),
    });
    await expect(started).rejects.toBeInstanceOf(RefusedError);
    await expect(started).rejects.toMatchObject({
      code: 'AGENT_COMMAND',
      message: expect.stringMatching(
        /^cannot start the broker of the sandboxed agent at \/proc\/self\/broker\.sock: listen E[A-Z]+: /,
      ),
    });
  });

  it('listens at a path longer than a socket address holds, keeping no descriptor open, and removes it when closed', async () => {
    const root = tempDir();
    const socketPath = join(root, 'w'.repeat(120), 'broker.sock');
    const folderDescriptors = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === dirname(socketPath);
        } catch {
          return false;
        }
      });
    const broker = await startBroker(root, { listen: { socketPath } });
    expect(folderDescriptors()).toEqual([]);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(await request(broker, event(broker.token, 'PLAN_READY', {}))).toEqual({
      stdout: 'PLAN_READY applied\n',
      stderr: '',
      code: 0,
    });
    expect(folderDescriptors()).toEqual([]);
    await broker.close();
    expect(existsSync(socketPath)).toBe(false);
  });

  // Last: it waits for the default time.
  it('closes a connection that sends no request when the default time is up (10 s)', async () => {
    const broker = await startBroker(tempDir());
    expect(await connectTo(broker, []).answer).toEqual([]);
  });
});
