import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FED_BIN } from '../helpers/fed-cli.js';
import { signalFederation, type SignalFederation } from '../helpers/signal-federation.js';

/** `fed mcp` for `team`, spawned from the built CLI, with an SDK client connected to it over stdio. */
async function connect(fed: SignalFederation, team: string) {
  const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FED_BIN, '--root', fed.root, 'mcp'],
    env: { ...env, FED_TEAM: team, FED_TELEMETRY_ENABLED: 'false' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-server-test', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult, index = 0): string {
  const item = result.content[index];
  if (item?.type !== 'text') throw new Error(`content[${index}] is not text: ${JSON.stringify(result.content)}`);
  return item.text;
}

describe('fed mcp (built CLI, SDK client over stdio)', () => {
  it('lists its tools with input schemas and says who the team is', async () => {
    const fed = await signalFederation(['docs']);
    const { client } = await connect(fed, 'docs');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fed_whoami');
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    const whoami = await call(client, 'fed_whoami');
    expect(whoami.isError).toBeFalsy();
    const me = JSON.parse(text(whoami)) as {
      team: string;
      archetype: { id: string };
      state: string;
      accepts: unknown[];
    };
    expect(me).toMatchObject({ team: 'docs', archetype: { id: 'deliverable' }, state: 'preparing' });
    expect(me.accepts.length).toBeGreaterThan(0);
  });
});
