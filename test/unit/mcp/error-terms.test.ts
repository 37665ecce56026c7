import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openFederation } from 'fed';
import { createTeamServer } from 'fed/testing';
import { signalFederation } from '../../helpers/signal-federation.js';

/** The text of a failed tool call of the docs team's server. */
async function refusal(args: Record<string, unknown>): Promise<string> {
  const fed = await signalFederation(['docs']);
  const federation = openFederation(fed.root);
  const served = await createTeamServer(federation, await federation.team('docs'));
  onTestFinished(() => served.close());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await served.server.connect(serverSide);
  const client = new Client({ name: 'error-terms', version: '1' });
  await client.connect(clientSide);
  onTestFinished(() => client.close());
  const result = (await client.callTool({ name: 'fed_send', arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
}

describe("a tool's refusal names the tool's arguments, not the CLI's options", () => {
  it('replyTo, not --reply-to; a command it quotes keeps its options', async () => {
    const id = randomUUID();
    const text = await refusal({ to: 'meta', type: 'report', subject: 'done', replyTo: id });
    expect(text).toBe(
      `replyTo: no signal with id ${id} in this federation (live or archived); find it with: fed signal list --all (UNKNOWN_SIGNAL)`,
    );
  });

  it('to, not --to', async () => {
    const text = await refusal({ to: 'nobody', type: 'report', subject: 'done' });
    expect(text).toContain('(to)');
    expect(text).not.toMatch(/--to\b/);
  });
});
