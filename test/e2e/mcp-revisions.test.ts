import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openFederation, sendSignal } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { agentEnv, connectFedMcp } from '../helpers/mcp-client.js';
import { signalFederation } from '../helpers/signal-federation.js';

/** `fed mcp` of team docs spawned from the built CLI, with the SDK's v2 client pinned to 2026-07-28. */
async function connectModern(root: string) {
  const transport = new ModernStdio({
    command: process.execPath,
    args: [FED_BIN, '--root', root, 'mcp'],
    env: agentEnv('docs'),
    stderr: 'pipe',
  });
  const client = new ModernClient(
    { name: 'fed-mcp-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

describe('fed mcp answers each MCP revision by its own rules (built CLI, real clients over stdio)', () => {
  it('serves a 2026-07-28 client without a session: typed results, inbox news on its listen stream', async () => {
    const fed = await signalFederation(['docs']);
    const client = await connectModern(fed.root);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()?.name).toBe('fed');

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['fed_whoami', 'fed_inbox', 'fed_ack', 'fed_send', 'fed_event']);
    const me = (await client.callTool({ name: 'fed_whoami', arguments: {} })) as CallToolResult;
    expect(me.structuredContent).toMatchObject({ team: 'docs', state: 'preparing' });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });

    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
    await client.listen({ resourceSubscriptions: ['fed://inbox'] });
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'Document the API' });
    await waitFor(() => updated.length > 0, 10_000, 'the inbox update');
    expect(updated[0]).toBe('fed://inbox');
    const inbox = (await client.callTool({ name: 'fed_inbox', arguments: {} })) as CallToolResult;
    expect(inbox.structuredContent).toMatchObject({ signals: [{ subject: 'Document the API' }] });
  });

  it('serves a 2025-11-25 client through its initialize handshake, with the same typed results', async () => {
    const fed = await signalFederation(['docs']);
    const client = await connectFedMcp(fed.root, 'docs');
    expect(client.getServerVersion()?.name).toBe('fed');
    const me = (await client.callTool({ name: 'fed_whoami', arguments: {} })) as CallToolResult;
    expect(me.structuredContent).toMatchObject({ team: 'docs', state: 'preparing' });
  });
});
