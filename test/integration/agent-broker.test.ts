import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AgentBroker } from '../../src/apps/launch/agent-broker.js';
import { teamEventApplier } from '../../src/apps/launch/agent-events.js';
import { openFederation } from '../../src/engine/context.js';
import { listSignals, runActors, sendSignal, viewLifecycle } from '../../src/index.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { getTeam } from '../../src/core/find-team.js';
import { encodeFrame, FRAME, FrameReader } from '../../src/infra/process/broker-protocol.js';
import { FED_BIN } from '../helpers/fed-cli.js';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { signalFederation } from '../helpers/signal-federation.js';

/** The broker of team `docs` in a fresh federation (the built fed runs its commands; its events it applies itself). */
async function docsBroker(): Promise<{ root: string; broker: AgentBroker }> {
  const { root } = await signalFederation(['docs']);
  const env = { ...process.env, FED_ROOT: root, FED_TEAM: 'docs', FED_TELEMETRY_ENABLED: 'false' };
  const fed = openFederation(root, { env });
  const broker = await AgentBroker.start({
    socketPath: join(root, '.fed', 'teams', 'docs', '.fed', 'launch', 'broker.sock'),
    root,
    env,
    applyEvent: teamEventApplier(fed, 'docs', fed.config, env),
  });
  onTestFinished(() => broker.close());
  return { root, broker };
}

/** One raw request, as any process that reaches the socket may send it; what came back. */
function request(
  broker: AgentBroker,
  frames: Buffer[],
  /** The client goes away (its process killed, say) once this holds of what came back. */
  goAwayWhen?: (got: { stderr: string }) => boolean,
): Promise<{ stdout: string; stderr: string; code: number | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect(broker.agentEnv().FED_BROKER!);
    const reader = new FrameReader();
    const got = { stdout: '', stderr: '', code: undefined as number | undefined };
    socket.on('connect', () => {
      for (const frame of frames) socket.write(frame);
    });
    socket.on('data', (chunk: Buffer) => {
      for (const { type, payload } of reader.push(chunk)) {
        if (type === FRAME.STDOUT) got.stdout += payload.toString();
        if (type === FRAME.STDERR) got.stderr += payload.toString();
        if (type === FRAME.EXIT) got.code = (JSON.parse(payload.toString()) as { code: number }).code;
      }
      if (goAwayWhen?.(got)) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
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
      socketPath: join(root, '.fed', 'teams', 'docs', '.fed', 'launch', 'broker.sock'),
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
});
