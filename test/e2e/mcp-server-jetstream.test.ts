import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { callTool, connectFedMcp, resultText } from '../helpers/mcp-client.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE = 'fed mcp on JetStream: the team on one working directory, meta on another';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it("watches the team's inbox through the backend: a signal from meta is announced; fed_send reaches meta", async () => {
    const env = { FED_NATS_URL: server().url };
    const metaRoot = tempDir('fed-mcp-meta-');
    const teamRoot = tempDir('fed-mcp-team-');
    const fedIn = (root: string, args: string[]) => runFed(['--root', root, ...args], { env, timeoutMs: 60_000 });
    for (const root of [metaRoot, teamRoot]) {
      const init = await fedIn(root, ['init', '--name', 'mcp-js']);
      expect(init.code, init.stderr).toBe(0);
    }
    const onboarded = await fedIn(teamRoot, ['team', 'onboard', 'docs']);
    expect(onboarded.code, onboarded.stderr).toBe(0);

    const client = await connectFedMcp(teamRoot, 'docs', env);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: 'fed://inbox' });

    const sent = await fedIn(metaRoot, ['signal', 'send', '--to', 'docs', '--type', 'question', '--subject', 'eta?']);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => updates.length > 0, 20_000, 'a resources/updated notification');
    const next = await callTool(client, 'fed_whoami');
    expect(resultText(next, 1)).toBe('new signals: 1 (fed_inbox reads them)');
    const inbox = JSON.parse(resultText(await callTool(client, 'fed_inbox'))) as { signals: { id: string }[] };
    expect(inbox.signals).toHaveLength(1);

    const answer = await callTool(client, 'fed_send', {
      to: 'meta',
      type: 'report',
      subject: 'tomorrow',
      replyTo: inbox.signals[0]!.id,
    });
    expect(answer.isError, resultText(answer)).toBeFalsy();
    const listed = await fedIn(metaRoot, ['signal', 'list', '--json']);
    const metaInbox = JSON.parse(listed.stdout) as { signals: { message: { from: string; subject: string } }[] };
    expect(metaInbox.signals.map((s) => [s.message.from, s.message.subject])).toContainEqual(['docs', 'tomorrow']);
  });
});
