import { spawn } from 'node:child_process';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listSignals, openFederation, sendSignal } from 'fed';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { agentEnv, callTool, connectFedMcp, resultText } from '../helpers/mcp-client.js';
import { signalFederation, type SignalFederation } from '../helpers/signal-federation.js';

const TOOLS = ['fed_whoami', 'fed_inbox', 'fed_ack', 'fed_send', 'fed_event'];

/** `fed mcp` for `team` of `fed`, with an SDK client connected to it. */
const connect = (fed: SignalFederation, team: string) => connectFedMcp(fed.root, team);
const call = callTool;
const text = resultText;

function json<T>(result: CallToolResult): T {
  expect(result.isError, text(result)).toBeFalsy();
  return JSON.parse(text(result)) as T;
}

/** A mission directive from meta waiting in `team`'s inbox (sent through the library: it sets the scene). */
async function sendMission(fed: SignalFederation, team: string) {
  const { message } = await sendSignal(openFederation(fed.root), {
    to: team,
    type: 'directive',
    subject: 'Document the API',
    body: 'Write deliverable.md',
  });
  return message.id;
}

describe('fed mcp (built CLI, SDK client over stdio)', () => {
  it('lists its tools with input schemas and says who the team is', async () => {
    const fed = await signalFederation(['docs']);
    const client = await connect(fed, 'docs');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description).toBeTruthy();
    }
    const send = tools.find((t) => t.name === 'fed_send')!.inputSchema;
    expect(Object.keys(send.properties ?? {})).toEqual(['to', 'type', 'subject', 'body', 'replyTo', 'id']);
    expect(send.required).toEqual(['to', 'type', 'subject']);
    const event = tools.find((t) => t.name === 'fed_event')!.inputSchema.properties as Record<
      string,
      { enum?: string[] }
    >;
    expect(event.type!.enum).toContain('PLAN_READY');

    const me = json<{
      team: string;
      archetype: { id: string };
      state: string;
      mission: unknown;
      accepts: { type: string; data: { properties: Record<string, unknown> } }[];
      deliverablePath: string;
      limits: unknown;
    }>(await call(client, 'fed_whoami'));
    expect(me).toMatchObject({ team: 'docs', archetype: { id: 'deliverable' }, state: 'preparing', mission: null });
    expect(me.deliverablePath).toMatch(/deliverable\.md$/);
    const planReady = me.accepts.find((e) => e.type === 'PLAN_READY');
    expect(planReady?.data.properties).toHaveProperty('sources');
    expect(planReady?.data.properties).not.toHaveProperty('at');
  });

  it('reads the inbox with a cursor (marking read), acknowledges, reports events and answers with fed_send', async () => {
    const fed = await signalFederation(['docs']);
    const missionId = await sendMission(fed, 'docs');
    const library = openFederation(fed.root);
    const { message: question } = await sendSignal(library, { to: 'docs', type: 'question', subject: 'eta?' });
    const client = await connect(fed, 'docs');

    type Page = { signals: { id: string; type: string; state: string }[]; next: string | null };
    const first = json<Page>(await call(client, 'fed_inbox', { limit: 1 }));
    expect(first.signals.map((s) => s.id)).toEqual([missionId]);
    expect(first.next).toBeTruthy();
    const second = json<Page>(await call(client, 'fed_inbox', { cursor: first.next, limit: 1 }));
    expect(second.signals.map((s) => s.id)).toEqual([question.id]);
    expect(second.next).toBeNull();
    // Read now: no longer unread, still unacknowledged.
    expect(json<Page>(await call(client, 'fed_inbox')).signals).toEqual([]);
    const pending = json<Page>(await call(client, 'fed_inbox', { show: 'unacknowledged' }));
    expect(pending.signals.map((s) => [s.id, s.state])).toEqual([
      [missionId, 'read'],
      [question.id, 'read'],
    ]);

    // Acknowledging the mission applies it: the lifecycle has its mission.
    const acked = json<{ acknowledged: { id: string; alreadyAcknowledged: boolean }[] }>(
      await call(client, 'fed_ack', { ids: [missionId] }),
    );
    expect(acked.acknowledged).toMatchObject([{ id: missionId, alreadyAcknowledged: false }]);
    expect(json<{ mission: { signalId: string } }>(await call(client, 'fed_whoami')).mission.signalId).toBe(missionId);

    const moved = json<{ from: string; to: string }>(
      await call(client, 'fed_event', { type: 'PLAN_READY', data: { sources: ['src'] } }),
    );
    expect(moved).toMatchObject({ from: 'preparing', to: 'scanning' });

    // The answer to the question goes out from docs, and answers it.
    const sent = json<{ id: string; from: string; replyTo: string }>(
      await call(client, 'fed_send', { to: 'meta', type: 'report', subject: 'tomorrow', replyTo: question.id }),
    );
    expect(sent).toMatchObject({ from: 'docs', replyTo: question.id });
    const metaInbox = await listSignals(library, { team: 'meta' });
    expect(metaInbox.signals.find((s) => s.message.id === sent.id)?.message.from).toBe('docs');
    const docsInbox = await listSignals(library, { team: 'docs' });
    expect(docsInbox.signals.find((s) => s.message.id === question.id)?.delivery.state).toBe('answered');
  });

  it('answers bad input, refusals and other teams with isError and fed message, and keeps serving', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const client = await connect(fed, 'docs');

    const noType = await call(client, 'fed_send', { to: 'meta', subject: 'x' });
    expect(noType.isError).toBe(true);
    expect(text(noType)).toContain('type');
    expect(text(noType)).toContain('fed_send accepts {to, type, subject, body?, replyTo?, id?}');
    expect(text(noType)).toContain('(INVALID_INPUT)');
    const badType = await call(client, 'fed_send', { to: 'meta', type: 'memo', subject: 'x' });
    expect(text(badType)).toMatch(/directive.*question.*report.*alert/);

    // A `from` is refused by name, and nothing is sent.
    const asApi = await call(client, 'fed_send', { to: 'meta', type: 'report', subject: 'x', from: 'api' });
    expect(asApi.isError).toBe(true);
    expect(text(asApi)).toContain('from');
    expect((await listSignals(openFederation(fed.root), { team: 'meta' })).signals).toEqual([]);

    const unknownTeam = await call(client, 'fed_send', { to: 'nobody', type: 'report', subject: 'x' });
    expect(unknownTeam.isError).toBe(true);
    expect(text(unknownTeam)).toContain('(UNKNOWN_TEAM)');
    expect(unknownTeam._meta).toEqual({ code: 'UNKNOWN_TEAM' });

    // An event the state does not accept: the same refusal `fed event` gives, naming what it accepts.
    const early = await call(client, 'fed_event', { type: 'SCAN_COMPLETE', data: { filesRead: 3 } });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/SCAN_COMPLETE is not accepted in preparing; it accepts .*PLAN_READY/);
    const cli = await runFed(['--root', fed.root, 'event', 'SCAN_COMPLETE', '--data', '{"filesRead":3}'], {
      env: agentEnv('docs'),
    });
    expect(cli.code).toBe(2);
    expect(text(early)).toBe(`${cli.stderr.trim().replace(/^fed: /, '')} (EVENT_NOT_ACCEPTED)`);
    // Refused for the state before its data is checked: no data at all gives the same refusal.
    const bare = await call(client, 'fed_event', { type: 'SCAN_COMPLETE' });
    expect(text(bare)).toBe(text(early));

    const unknownEvent = await call(client, 'fed_event', { type: 'SHIP_IT' });
    expect(text(unknownEvent)).toContain('PLAN_READY');
    const badData = await call(client, 'fed_event', { type: 'PLAN_READY', data: { sources: 'src' } });
    expect(badData.isError).toBe(true);
    expect(text(badData)).toContain('sources');

    const unknownAck = await call(client, 'fed_ack', { ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(text(unknownAck)).toContain('(UNKNOWN_SIGNAL)');
    const badCursor = await call(client, 'fed_inbox', { cursor: 'nope' });
    expect(text(badCursor)).toContain('cursor');

    // Still serving.
    expect(json<{ team: string }>(await call(client, 'fed_whoami')).team).toBe('docs');
  });

  it('serves no archived team, and fed_whoami tells that a team archived while it runs accepts nothing', async () => {
    const fed = await signalFederation(['docs']);
    const client = await connect(fed, 'docs');
    type Me = { status: string; state: string; accepts: { type: string }[] };
    const before = json<Me>(await call(client, 'fed_whoami'));
    expect(before).toMatchObject({ status: 'active', state: 'preparing' });
    expect(before.accepts.length).toBeGreaterThan(0);

    const archived = await runFed(['--root', fed.root, 'team', 'archive', 'docs']);
    expect(archived.code, archived.stderr).toBe(0);
    const after = json<Me>(await call(client, 'fed_whoami'));
    expect(after).toMatchObject({ status: 'archived', state: 'preparing', accepts: [] });
    const event = await call(client, 'fed_event', { type: 'FAIL', data: { reason: 'x' } });
    expect(text(event)).toContain('(TEAM_ARCHIVED)');

    // Started for it now, the server refuses at once, saying why and where its history is.
    const started = await runFed(['--root', fed.root, 'mcp'], { env: agentEnv('docs'), input: '' });
    expect(started.code).not.toBe(0);
    expect(started.stdout).toBe('');
    expect(started.stderr).toMatch(/team "docs" is archived; archived teams get no agent tools/);
    expect(started.stderr).toContain('fed signal list --team docs');
  });

  it("names a refused send's parties in fed_send's arguments, never a CLI option it does not take", async () => {
    const fed = await signalFederation(['docs', 'api']);
    const client = await connect(fed, 'docs');
    expect((await runFed(['--root', fed.root, 'team', 'archive', 'api'])).code).toBe(0);
    const toArchived = await call(client, 'fed_send', { to: 'api', type: 'report', subject: 'x' });
    expect(text(toArchived)).toMatch(/^recipient \(to\): team "api" is archived; /);

    // Its sender is the server's team, not an argument: the refusal names no option for it.
    expect((await runFed(['--root', fed.root, 'team', 'archive', 'docs'])).code).toBe(0);
    const fromArchived = await call(client, 'fed_send', { to: 'meta', type: 'report', subject: 'x' });
    expect(text(fromArchived)).toMatch(/^sender: team "docs" is archived; .*\(TEAM_ARCHIVED\)$/);
    expect(text(fromArchived)).not.toContain('--from');
  });

  it('announces a signal that arrives while it runs: resources/updated on fed://inbox and a note', async () => {
    const fed = await signalFederation(['docs']);
    const client = await connect(fed, 'docs');
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: 'fed://inbox' });
    expect(text(await call(client, 'fed_whoami'), 0)).toContain('"team"');

    // Another process sends a pause directive to the team.
    const sent = await runFed([
      '--root',
      fed.root,
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'pause now',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => updates.length > 0, 10_000, 'a resources/updated notification');
    expect(updates[0]).toBe('fed://inbox');

    const next = await call(client, 'fed_whoami');
    expect(next.content).toHaveLength(2);
    expect(text(next, 1)).toBe('new signals: 1 (fed_inbox reads them)');
    // Told once.
    expect((await call(client, 'fed_whoami')).content).toHaveLength(1);

    const resource = await client.readResource({ uri: 'fed://inbox' });
    const listed = JSON.parse((resource.contents[0] as { text: string }).text) as { signals: { subject: string }[] };
    expect(listed.signals.map((s) => s.subject)).toEqual(['pause now']);
  });

  it('answers the requests it read before stdin closed, then exits', async () => {
    const fed = await signalFederation(['docs']);
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fed_send', arguments: { to: 'meta', type: 'alert', subject: 'last words' } },
      },
    ];
    const result = await runFed(['--root', fed.root, 'mcp'], {
      env: agentEnv('docs'),
      input: requests.map((r) => `${JSON.stringify(r)}\n`).join(''),
    });
    expect(result.code, result.stderr).toBe(0);
    const answers = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: CallToolResult });
    const sent = answers.find((a) => a.id === 2)!.result;
    expect(JSON.parse(text(sent))).toMatchObject({ from: 'docs', to: 'meta', delivered: true });
    const metaInbox = await listSignals(openFederation(fed.root), { team: 'meta' });
    expect(metaInbox.signals.map((s) => s.message.subject)).toEqual(['last words']);
  });

  it('exits with code 0 when stdin closes, and on SIGTERM', async () => {
    const fed = await signalFederation(['docs']);
    for (const stop of ['eof', 'SIGTERM'] as const) {
      const child = spawn(process.execPath, [FED_BIN, '--root', fed.root, 'mcp'], {
        env: agentEnv('docs'),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      onTestFinished(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // Serving: it answers an initialize request.
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        })}\n`,
      );
      await waitFor(() => stdout.includes('"id":1'), 10_000, 'the initialize answer');
      const started = Date.now();
      if (stop === 'eof') child.stdin.end();
      else child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Promptly, not at once: a loaded machine may take seconds to stop a process.
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });
});
