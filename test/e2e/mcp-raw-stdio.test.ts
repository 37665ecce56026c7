import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listSignals, openFederation } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { agentEnv } from '../helpers/mcp-client.js';
import { signalFederation } from '../helpers/signal-federation.js';

type Line = Record<string, unknown> | Record<string, unknown>[];

/**
 * The built `fed mcp` spawned as a client spawns it, written raw lines on its real stdin: what the stream
 * pair of test/unit/mcp/protocol-layer.test.ts covers in depth, here once through the command's own
 * stdin and stdout (a pipe, its chunking of a 12 MB line, the exit code).
 */
function spawnFedMcp(root: string) {
  const child = spawn(process.execPath, [FED_BIN, '--root', root, 'mcp'], {
    env: agentEnv('docs'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines: Line[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const part of parts) lines.push(JSON.parse(part) as Line);
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const send = (text: string) => void child.stdin.write(`${text}\n`);
  /** The next line the server writes after the `before`-th. */
  async function next(before: number): Promise<Line> {
    await waitFor(() => lines.length > before, 10_000, 'fed mcp to answer');
    return lines[before]!;
  }
  /** `text` sent, and the one line it is answered with. */
  async function exchange(text: string): Promise<Line> {
    const before = lines.length;
    send(text);
    return next(before);
  }
  return { child, send, exchange, lines, exited, stderr: () => stderr };
}

const request = (id: string, method: string, params?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
/** The per-request envelope a 2026-07-28 client puts in each request's `_meta`. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-probe', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const initialize = (revision: string) =>
  request('init', 'initialize', {
    protocolVersion: revision,
    capabilities: {},
    clientInfo: { name: 'raw-probe', version: '1' },
  });

describe('fed mcp over its real stdio, driven with raw lines', () => {
  it('answers every bad line with its JSON-RPC error, serves nothing before initialize, and keeps serving', async () => {
    const fed = await signalFederation(['docs']);
    const mcp = spawnFedMcp(fed.root);
    const send = { name: 'fed_send', arguments: { to: 'meta', type: 'alert', subject: 'before the handshake' } };

    expect(await mcp.exchange(request('early', 'tools/call', send))).toMatchObject({
      id: 'early',
      error: { code: -32600, message: expect.stringMatching(/before initialize/) },
    });
    expect(await mcp.exchange('{"jsonrpc":"2.0","id":1,"method":')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    expect(await mcp.exchange('{"hello":"world"}')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await mcp.exchange('{"jsonrpc":"2.0","id":null,"method":"tools/list"}')).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/"id" must be a string or a number/) },
    });
    expect(await mcp.exchange(`[${request('b0', 'ping')}]`)).toMatchObject({ error: { code: -32600 } });

    // 2025-03-26, the one revision with batches: a batch is executed and answered as one array.
    expect(await mcp.exchange(initialize('2025-03-26'))).toMatchObject({
      id: 'init',
      result: { protocolVersion: '2025-03-26' },
    });
    mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(await mcp.exchange(`[${request('b1', 'ping')},${request('b2', 'tools/list')}]`)).toEqual([
      expect.objectContaining({ id: 'b1', result: {} }),
      expect.objectContaining({ id: 'b2', result: expect.objectContaining({ tools: expect.any(Array) }) }),
    ]);
    expect(await mcp.exchange(request('noname', 'tools/call', {}))).toMatchObject({
      id: 'noname',
      error: { code: -32602, message: expect.stringMatching(/params\.name/) },
    });
    const deep = `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"fed_whoami","arguments":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(await mcp.exchange(deep)).toMatchObject({ id: 'deep', error: { code: -32602 } });
    expect(await mcp.exchange(request('unknown', 'tools/call', { name: 'nope', arguments: {} }))).toMatchObject({
      id: 'unknown',
      error: { code: -32602, message: expect.stringMatching(/unknown tool "nope"/) },
    });
    expect(await mcp.exchange(request('huge', 'ping', { pad: 'a'.repeat(12 * 1024 * 1024) }))).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/longer than \d+ bytes, skipped/) },
    });
    expect(await mcp.exchange(request('after', 'ping'))).toMatchObject({ id: 'after', result: {} });

    // The send before the handshake delivered nothing.
    const metaInbox = await listSignals(openFederation(fed.root), { team: 'meta' });
    expect(metaInbox.signals).toEqual([]);
    mcp.child.stdin.end();
    expect(await mcp.exited, mcp.stderr()).toBe(0);
  }, 60_000);

  it('keeps a 2026-07-28 connection so: a refused initialize changes nothing, and a ping first picks no revision', async () => {
    const fed = await signalFederation(['docs']);
    const modern = spawnFedMcp(fed.root);
    expect(await modern.exchange(request('list', 'tools/list', { _meta: envelope }))).toMatchObject({
      id: 'list',
      result: { tools: expect.any(Array) },
    });
    expect(await modern.exchange(initialize('2025-06-18'))).toMatchObject({
      id: 'init',
      error: { code: -32022, data: { supported: ['2026-07-28'] } },
    });
    expect(await modern.exchange(request('after', 'tools/list', { _meta: envelope }))).toMatchObject({
      id: 'after',
      result: { tools: expect.any(Array) },
    });

    const pinged = spawnFedMcp(fed.root);
    expect(await pinged.exchange(request('ping', 'ping'))).toMatchObject({ id: 'ping', result: {} });
    expect(await pinged.exchange(request('discover', 'server/discover', { _meta: envelope }))).toMatchObject({
      id: 'discover',
      result: { supportedVersions: ['2026-07-28'] },
    });
    expect(await pinged.exchange(request('bare', 'ping'))).toMatchObject({ id: 'bare', result: {} });

    // A ping first leaves the handshake open as well.
    const legacy = spawnFedMcp(fed.root);
    expect(await legacy.exchange(request('ping', 'ping'))).toMatchObject({ id: 'ping', result: {} });
    expect(await legacy.exchange(initialize('2025-11-25'))).toMatchObject({
      id: 'init',
      result: { protocolVersion: '2025-11-25' },
    });
  }, 60_000);
});
