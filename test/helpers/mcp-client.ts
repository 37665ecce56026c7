import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import { FED_BIN } from './fed-cli.js';

/** The environment of a `fed mcp` run by an agent of `team`: FED_TEAM set, no FED_ROOT of the outer run. */
export function agentEnv(team: string, extra: Record<string, string> = {}): Record<string, string> {
  const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env as Record<string, string>;
  return { ...env, FED_TEAM: team, FED_TELEMETRY_ENABLED: 'false', ...extra };
}

/** `fed mcp` in `root` for `team`, spawned from the built CLI, with an SDK client connected over stdio. */
export async function connectFedMcp(root: string, team: string, extraEnv: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FED_BIN, '--root', root, 'mcp'],
    env: agentEnv(team, extraEnv),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'fed-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  // Listed once, so the client checks each result's structuredContent against the tool's outputSchema.
  await client.listTools();
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's content item. */
export function resultText(result: CallToolResult, index = 0): string {
  const item = result.content[index];
  if (item?.type !== 'text') throw new Error(`content[${index}] is not text: ${JSON.stringify(result.content)}`);
  return item.text;
}
