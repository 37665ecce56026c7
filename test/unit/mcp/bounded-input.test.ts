import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createFedServer,
  createTeamServer,
  loadTeamLifecycle,
  MAX_EVENT_DATA_BYTES,
  registerFedTool,
  stateOf,
} from 'fed/testing';
import { type Federation, listSignals, openFederation } from 'fed';
import { fedInProcess } from '../../helpers/fed-in-process.js';
import { rawMcp } from '../../helpers/raw-mcp.js';
import { signalFederation } from '../../helpers/signal-federation.js';

type ToolResult = { isError?: boolean; content: { text: string }[] };

/** The team "docs" of a new federation, its `fed mcp` served over a stream pair and initialized. */
async function docsServer() {
  const fed = await signalFederation(['docs']);
  const federation = openFederation(fed.root);
  const team = await federation.team('docs');
  const mcp = rawMcp(() => createTeamServer(federation, team));
  await mcp.initialize();
  let next = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const id = ++next;
    mcp.request(id, 'tools/call', { name, arguments: args });
    return (await mcp.response(id)).result as ToolResult;
  };
  return { root: fed.root, federation, mcp, call };
}

const stateOfDocs = async (federation: Federation) =>
  stateOf((await loadTeamLifecycle(await federation.team('docs'), federation.backend.lifecycles)).snapshot);

describe("bad input to a team's tools is refused as their schemas say", () => {
  it('refuses event data over the limit of a signal, from fed_event and fed event --data, changing nothing', async () => {
    const docs = await docsServer();
    const reason = 'x'.repeat(2 * 1024 * 1024);
    const refused = await docs.call('fed_event', { type: 'FAIL', data: { reason } });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain(`over the ${MAX_EVENT_DATA_BYTES}-byte limit of an event`);
    expect(await stateOfDocs(docs.federation)).toBe('preparing');

    const cli = await fedInProcess(
      ['event', 'FAIL', '--team', 'docs', '--data', JSON.stringify({ reason })],
      docs.root,
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(
      `its data is ${reason.length + 13} bytes as JSON, over the ${MAX_EVENT_DATA_BYTES}-byte limit`,
    );
    expect(await stateOfDocs(docs.federation)).toBe('preparing');

    // Up to the limit is an event as any other.
    const fits = await docs.call('fed_event', {
      type: 'FAIL',
      data: { reason: 'x'.repeat(MAX_EVENT_DATA_BYTES - 20) },
    });
    expect(fits.isError, fits.content[0]!.text).toBeFalsy();
    expect(await stateOfDocs(docs.federation)).toBe('failed');
  });

  it("lists fed_send's subject rule as fed enforces it: one line with a non-space character", async () => {
    const docs = await docsServer();
    docs.mcp.request('list', 'tools/list');
    const { tools } = (await docs.mcp.response('list')).result as {
      tools: { name: string; inputSchema: Record<string, unknown> }[];
    };
    const listed = new Ajv2020({ strict: false }).compile(tools.find((t) => t.name === 'fed_send')!.inputSchema);
    const send = (subject: string) => ({ to: 'meta', type: 'report', subject });
    for (const subject of [' ', 'two\nlines', '\t', 'a\r\nb']) {
      expect(listed(send(subject)), JSON.stringify(subject)).toBe(false);
      const result = await docs.call('fed_send', send(subject));
      expect(result.isError, JSON.stringify(subject)).toBe(true);
      expect(result.content[0]!.text).toContain('subject: expected one line with at least one non-space character');
    }
    expect(listed(send(' fine '))).toBe(true);
    expect((await docs.call('fed_send', send(' fine '))).isError).toBeFalsy();
    expect((await listSignals(docs.federation, { team: 'meta', box: 'inbox' })).signals).toHaveLength(1);
  });

  it('refuses to register a tool whose schema has a rule its listed JSON Schema cannot say', () => {
    const server = createFedServer('fed-test', 'test');
    const input = z.strictObject({
      note: z
        .string()
        .refine((s) => s.trim() !== '')
        .optional(),
    });
    expect(() => registerFedTool(server, 'bad', { description: 'bad', input }, async () => 'no')).toThrow(
      'tool bad: the argument note (a refine) has a check its listed JSON Schema cannot say',
    );
  });
});
