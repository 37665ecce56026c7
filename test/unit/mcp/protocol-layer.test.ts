import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFedServer, createTeamServer, MAX_LINE_BYTES, registerFedTool } from 'fed/testing';
import { listSignals, openFederation } from 'fed';
import { rawMcp, type Answer } from '../../helpers/raw-mcp.js';
import { signalFederation } from '../../helpers/signal-federation.js';

/** A server with one tool, `echo`, served over a stream pair as on stdio. */
function echoServer() {
  return rawMcp(async () => {
    const server = createFedServer('fed-test', 'test tools');
    registerFedTool(
      server,
      'echo',
      { description: 'echo a word', input: z.strictObject({ word: z.string() }) },
      async ({ word }) => ({ word }),
    );
    return { server, close: () => undefined };
  });
}

const errorOf = (line: Answer) => (line as { error: { code: number; message: string } }).error;
const isError = (code: number) => (line: Answer) => !Array.isArray(line) && errorOf(line)?.code === code;

describe("fed mcp's JSON-RPC layer (raw lines over a stream pair)", () => {
  it('answers what is not JSON with -32700 and what is not JSON-RPC with -32600, and keeps serving', async () => {
    const mcp = echoServer();
    await mcp.initialize();
    mcp.send('{"jsonrpc":"2.0","id":1,"method":');
    const parse = await mcp.answer(isError(-32700));
    expect(parse).toMatchObject({ jsonrpc: '2.0', id: null });
    expect(errorOf(parse).message).toMatch(/not JSON/);

    for (const [line, id, says] of [
      ['{"hello":"world"}', null, /"jsonrpc" must be "2.0"/],
      ['42', null, /expected an object/],
      ['{"jsonrpc":"2.0","id":null,"method":"tools/list"}', null, /"id" must be a string or a number/],
      ['{"jsonrpc":"1.0","id":7,"method":"tools/list"}', 7, /"jsonrpc" must be "2.0"/],
      ['{"jsonrpc":"2.0","id":8}', 8, /needs a "result" or an "error"/],
    ] as const) {
      const before = mcp.lines.length;
      mcp.send(line);
      await mcp.answer((l) => mcp.lines.indexOf(l) >= before);
      const answer = mcp.lines[before] as Record<string, unknown>;
      expect(answer, line).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
      expect(errorOf(answer).message, line).toMatch(says);
    }
    mcp.request(9, 'tools/call', { name: 'echo', arguments: { word: 'still here' } });
    expect(await mcp.response(9)).toMatchObject({
      result: { content: [{ text: expect.stringContaining('still here') }] },
    });
  });

  it('answers bad params and an unknown tool with -32602, naming what is wrong, and keeps serving', async () => {
    const mcp = echoServer();
    await mcp.initialize();
    mcp.request(1, 'tools/call', { arguments: {} });
    const noName = errorOf(await mcp.response(1));
    expect(noName.code).toBe(-32602);
    expect(noName.message).toBe(
      'invalid params for "tools/call": params.name: expected a string, got nothing (the field is missing)',
    );

    // Present but of the wrong type: said as what it is, not as missing.
    mcp.request(5, 'tools/call', { name: 'echo', arguments: [1, 2] });
    expect(errorOf(await mcp.response(5)).message).toBe(
      'invalid params for "tools/call": params.arguments: expected an object, got an array',
    );

    const deep = 100_000;
    mcp.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"word":${'['.repeat(deep)}${']'.repeat(deep)}}}}`,
    );
    expect(errorOf(await mcp.response(2))).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/nested deeper than 64/),
    });

    mcp.request(3, 'tools/call', { name: 'nope', arguments: {} });
    const unknown = errorOf(await mcp.response(3));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toMatch(/unknown tool "nope"; tools: echo/);

    mcp.request(4, 'tools/call', { name: 'echo', arguments: { word: 'ok' } });
    expect(await mcp.response(4)).toHaveProperty('result');
  });

  it('answers a line over the limit with -32600 once, skips it whole, and answers the next line', async () => {
    const mcp = echoServer();
    await mcp.initialize();
    // 12 MB in chunks, as a pipe delivers it, the newline last.
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    mcp.send(
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"word":"'),
    );
    for (let i = 0; i < 12; i++) mcp.send(chunk);
    mcp.send('"}}}');
    mcp.request(2, 'ping');
    await mcp.response(2);
    const oversize = mcp.lines.filter(isError(-32600));
    expect(oversize).toHaveLength(1);
    expect(errorOf(oversize[0]!).message).toContain(`longer than ${MAX_LINE_BYTES} bytes`);
    expect(mcp.lines.some((l) => !Array.isArray(l) && l.id === 1)).toBe(false);
  });

  it('refuses a batch unless the agreed revision has batches, then executes it as one array', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { word: 'one' } } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: {} },
      { nonsense: true },
    ]);
    const current = echoServer();
    current.send(batch);
    expect(errorOf(await current.answer(isError(-32600))).message).toMatch(/no revision is agreed yet/);
    await current.initialize('2025-11-25');
    current.send(batch);
    await current.answer((l) => isError(-32600)(l) && /agreed 2025-11-25/.test(errorOf(l).message));
    // A connection speaks one revision: a request naming 2026-07-28 after initialize is refused.
    current.request('modern', 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    expect(errorOf(await current.response('modern'))).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/names revision 2026-07-28, but this connection opened with initialize/),
    });

    const old = echoServer();
    expect(await old.initialize('2025-03-26')).toMatchObject({ result: { protocolVersion: '2025-03-26' } });
    old.send(batch);
    const answers = (await old.answer(Array.isArray)) as Record<string, unknown>[];
    expect(answers).toHaveLength(4);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get('a')).toMatchObject({ result: { content: [{ text: expect.stringContaining('one') }] } });
    expect(byId.get('b')).toMatchObject({ result: {} });
    expect(byId.get('c')).toMatchObject({ error: { code: -32602 } });
    expect(byId.get(null)).toMatchObject({ error: { code: -32600 } });
    old.send('[]');
    await old.answer((l) => isError(-32600)(l) && /empty batch/.test(errorOf(l).message));
  });

  it('serves nothing but ping before initialize: a fed_send sent before it delivers no signal', async () => {
    const fed = await signalFederation(['docs']);
    const federation = openFederation(fed.root);
    const team = await federation.team('docs');
    const mcp = rawMcp(() => createTeamServer(federation, team));
    mcp.request(1, 'tools/call', { name: 'fed_send', arguments: { to: 'meta', type: 'report', subject: 'early' } });
    const early = errorOf(await mcp.response(1));
    expect(early).toMatchObject({ code: -32600, message: expect.stringMatching(/"tools\/call" before initialize/) });
    mcp.request(2, 'ping');
    expect(await mcp.response(2)).toMatchObject({ result: {} });
    expect((await listSignals(federation, { team: 'meta', box: 'inbox' })).signals).toHaveLength(0);

    await mcp.initialize();
    mcp.request(3, 'tools/call', { name: 'fed_send', arguments: { to: 'meta', type: 'report', subject: 'after' } });
    expect(await mcp.response(3)).toHaveProperty('result');
    expect((await listSignals(federation, { team: 'meta', box: 'inbox' })).signals).toHaveLength(1);
  });

  it('serves a request that names 2026-07-28 in its _meta without a handshake, and refuses a revision it does not serve', async () => {
    const mcp = echoServer();
    const envelope = (revision: string) => ({
      'io.modelcontextprotocol/protocolVersion': revision,
      'io.modelcontextprotocol/clientInfo': { name: 'raw-probe', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    mcp.request('discover', 'server/discover', { _meta: envelope('2026-07-28') });
    expect(await mcp.response('discover')).toMatchObject({
      result: { supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
    mcp.request(1, 'tools/call', { name: 'echo', arguments: { word: 'modern' }, _meta: envelope('2026-07-28') });
    expect(await mcp.response(1)).toMatchObject({ result: { content: [{ text: expect.stringContaining('modern') }] } });
    mcp.request(2, 'tools/call', { name: 'echo', arguments: { word: 'x' }, _meta: envelope('2099-01-01') });
    expect(errorOf(await mcp.response(2)).message).toMatch(/2099-01-01/);
    mcp.request(3, 'tools/call', { name: 'nope', arguments: {}, _meta: envelope('2026-07-28') });
    expect(errorOf(await mcp.response(3)).code).toBe(-32602);
    mcp.send(
      JSON.stringify([{ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: envelope('2026-07-28') } }]),
    );
    await mcp.answer((l) => isError(-32600)(l) && /speaks 2026-07-28/.test(errorOf(l).message));
  });
});
