import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createMetaServer, createTeamServer } from 'fed/testing';
import { applyLifecycleInputs, openFederation, runActors, sendSignal } from 'fed';
import { blockMetaInbox } from '../../helpers/docs-federation.js';
import { signalFederation } from '../../helpers/signal-federation.js';

/** An SDK client connected to `server`, its tools listed (so the client checks each result against its outputSchema). */
async function connect(server: McpServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'typed-results', version: '1' });
  await client.connect(clientSide);
  onTestFinished(() => client.close());
  const { tools } = await client.listTools();
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // The text copy stays, for clients that read only text: the same data.
    expect(result.structuredContent).toEqual(JSON.parse((result.content[0] as { text: string }).text));
    return result.structuredContent as Record<string, unknown>;
  };
  return { tools, call };
}

describe('typed tool results', () => {
  it("declares an outputSchema for each of a team's tools and answers structuredContent that fits it", async () => {
    const fed = await signalFederation(['docs']);
    const federation = openFederation(fed.root);
    const served = await createTeamServer(federation, await federation.team('docs'));
    onTestFinished(() => served.close());
    const { tools, call } = await connect(served.server);
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });

    await sendSignal(federation, { to: 'docs', type: 'directive', subject: 'Document the API' });
    expect(await call('fed_whoami')).toMatchObject({ team: 'docs', state: 'preparing' });
    const inbox = await call('fed_inbox');
    const [signal] = inbox.signals as { id: string }[];
    expect(await call('fed_ack', { ids: [signal!.id] })).toMatchObject({ acknowledged: [{ id: signal!.id }] });
    expect(await call('fed_send', { to: 'meta', type: 'report', subject: 'planned' })).toMatchObject({ to: 'meta' });
    expect(await call('fed_event', { type: 'FAIL', data: { reason: 'testing' } })).toMatchObject({ to: 'failed' });
  });

  it("fed_ack's warnings — what the lifecycle still owes, retried later — fit its outputSchema", async () => {
    const fed = await signalFederation(['docs']);
    const federation = openFederation(fed.root);
    await sendSignal(federation, { to: 'docs', type: 'directive', subject: 'Document the API' });
    await runActors(federation, { team: 'docs', once: true, durable: false });
    // meta's inbox cannot be written: the report of the agent's next step is owed.
    blockMetaInbox(fed.root);
    const docs = await federation.team('docs');
    await applyLifecycleInputs(federation, docs, [
      { source: 'event', event: { type: 'PLAN_READY', sources: ['src'] } },
    ]);
    const ids = [];
    for (const subject of ['And the CLI', 'And the MCP tools'])
      ids.push((await sendSignal(federation, { to: 'docs', type: 'directive', subject })).message.id);
    const served = await createTeamServer(federation, docs);
    onTestFinished(() => served.close());
    const { call } = await connect(served.server);
    // Each id's apply fails the same owed report again: it is said once.
    expect(await call('fed_ack', { ids })).toEqual({
      acknowledged: ids.map((id) => expect.objectContaining({ id, alreadyAcknowledged: false })),
      warnings: [
        expect.stringMatching(/reporting "preparing → scanning" to meta for team "docs" failed and will be retried/),
      ],
    });
  });

  it("does the same for meta's tools", async () => {
    const fed = await signalFederation(['docs']);
    const federation = openFederation(fed.root);
    const served = await createMetaServer(federation);
    onTestFinished(() => served.close());
    const { tools, call } = await connect(served.server);
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });

    await sendSignal(federation, { from: 'docs', to: 'meta', type: 'question', subject: 'eta?' }, { caller: 'docs' });
    expect(await call('fed_status')).toMatchObject({ teams: [{ team: 'docs' }] });
    expect(await call('fed_team', { team: 'docs' })).toMatchObject({ domainId: 'docs' });
    expect(await call('fed_needs_you')).toMatchObject({ items: [{ kind: 'question' }] });
    expect(await call('fed_inbox')).toMatchObject({ signals: [{ subject: 'eta?' }], more: 0 });
    expect(await call('fed_send', { to: 'docs', type: 'directive', subject: 'go' })).toMatchObject({ to: 'docs' });
    expect(await call('fed_ack', { all: true })).toMatchObject({ acknowledged: [{ subject: 'eta?' }] });
    expect(await call('fed_team_control', { team: 'docs', action: 'pause' })).toMatchObject({ team: 'docs' });
  });
});
