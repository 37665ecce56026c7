import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerFedTool, setResultNotes } from '../../../src/apps/mcp/fed-tool.js';
import { createFedServer } from 'fed/testing';
import { RefusedError } from 'fed';

/** A server with fed tools, and a client connected to it in memory. */
async function serve(setup: (server: ReturnType<typeof createFedServer>) => void) {
  const server = createFedServer('fed-test', 'test tools');
  setup(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, call };
}

const texts = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : c.type));

describe('registerFedTool', () => {
  const echo = z.strictObject({ word: z.enum(['yes', 'no']), times: z.int().optional() });

  it('lists the schema, validates with fed messages naming what is accepted, and answers', async () => {
    const { client, call } = await serve((server) =>
      registerFedTool(server, 'echo', { description: 'echo a word', input: echo }, async (args) => ({ ...args })),
    );
    const [tool] = (await client.listTools()).tools;
    expect(tool).toMatchObject({ name: 'echo', description: 'echo a word', inputSchema: { type: 'object' } });
    expect(tool!.inputSchema.required).toEqual(['word']);

    expect(JSON.parse(texts(await call('echo', { word: 'yes' }))[0]!)).toEqual({ word: 'yes' });
    const bad = await call('echo', { word: 'maybe', extra: 1 });
    expect(bad.isError).toBe(true);
    expect(bad._meta).toEqual({ code: 'INVALID_INPUT' });
    expect(texts(bad)[0]).toContain('invalid arguments for echo');
    expect(texts(bad)[0]).toContain('yes');
    expect(texts(bad)[0]).toContain('extra');
    expect(texts(bad)[0]).toContain('echo accepts {word, times?} and nothing else');
    await expect(call('nope')).rejects.toMatchObject({ code: -32602, message: /unknown tool "nope"; tools: echo/ });
  });

  it('turns a FedError into isError with its code, and any other error into isError, and keeps serving', async () => {
    const { call } = await serve((server) => {
      const none = z.strictObject({});
      registerFedTool(server, 'refuse', { description: 'refuses', input: none }, () =>
        Promise.reject(new RefusedError('TEAM_PAUSED', 'team "docs" is paused')),
      );
      registerFedTool(server, 'bug', { description: 'breaks', input: none }, () => Promise.reject(new Error('boom')));
      registerFedTool(server, 'ok', { description: 'works', input: none }, async () => 'fine');
    });
    const refused = await call('refuse');
    expect(refused).toMatchObject({ isError: true, _meta: { code: 'TEAM_PAUSED' } });
    expect(texts(refused)).toEqual(['team "docs" is paused (TEAM_PAUSED)']);
    expect(await call('bug')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'boom' }] });
    expect(texts(await call('ok'))).toEqual(['fine']);
  });

  it('adds the notes to the next result, errors included', async () => {
    let pending = ['new signals: 2 (fed_inbox reads them)'];
    const { call } = await serve((server) => {
      // Set before any tool: the order does not matter.
      setResultNotes(server, () => {
        const notes = pending;
        pending = [];
        return notes;
      });
      registerFedTool(server, 'ok', { description: 'works', input: z.strictObject({}) }, async () => 'fine');
    });
    expect(texts(await call('ok'))).toEqual(['fine', 'new signals: 2 (fed_inbox reads them)']);
    expect(texts(await call('ok'))).toEqual(['fine']);
    pending = ['news'];
    expect(texts(await call('ok', { x: 1 }))).toHaveLength(2);
  });
});
