import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { callTool } from '../helpers/mcp-client.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed mcp --meta` as a person's MCP client runs it: the SDK's client spawning the built CLI over stdio,
 * in a real federation whose teams are onboarded, and whose signals are sent, with the CLI.
 */

/** The environment fed runs with in the tests: no inherited federation or team, no telemetry. */
function fedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const env = Object.fromEntries(Object.entries(inherited).filter((entry): entry is [string, string] => !!entry[1]));
  return { ...env, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...extra };
}

/** A git repository with a federation: `docs` (deliverable) and `app` (coding, on its own branch). */
async function federation() {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeTree(root, { 'README.md': '# repo\n' });
  const fed = async (...args: string[]) => {
    const result = await runFed(['--root', root, ...args], { cwd: root });
    return result;
  };
  expect((await fed('init')).code).toBe(0);
  git('add', '-A');
  git('commit', '-qm', 'repo');
  expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
  expect((await fed('team', 'onboard', 'app', '--archetype', 'coding', '--placement', 'worktree')).code).toBe(0);
  return { root, fed };
}

async function metaClient(root: string): Promise<Client> {
  const client = new Client({ name: 'mcp-meta-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FED_BIN, '--root', root, 'mcp', '--meta'],
    cwd: root,
    env: fedEnv(),
    stderr: 'pipe',
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** A tool's answer: whether it is an error, its text, and the notes after it ("new signals: N"). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await callTool(client, name, args);
  const [text = '', ...notes] = result.content.map((item) => (item.type === 'text' ? item.text : ''));
  return { isError: result.isError === true, text, notes };
}

/** A tool's JSON answer (refused answers fail the test with their text). */
async function callJson<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}) {
  const { isError, text } = await call(client, name, args);
  expect(isError, text).toBe(false);
  return JSON.parse(text) as T;
}

describe('fed mcp --meta', () => {
  it('lists its tools and shows every team', async () => {
    const { root } = await federation();
    const client = await metaClient(root);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'fed_ack',
      'fed_inbox',
      'fed_needs_you',
      'fed_review',
      'fed_send',
      'fed_status',
      'fed_team',
      'fed_team_control',
    ]);
    const send = tools.find((tool) => tool.name === 'fed_send')!;
    expect(send.inputSchema.properties!.type).toMatchObject({ enum: ['directive', 'question', 'report', 'alert'] });
    expect(send.inputSchema.required).toEqual(['to', 'type', 'subject']);

    const status = await callJson<{
      teams: { team: string; archetype: string; status: string; state: string; healthy: boolean }[];
      totals: { teams: number; runs: number };
    }>(client, 'fed_status');
    expect(
      status.teams.map(({ team, archetype, status, state, healthy }) => ({ team, archetype, status, state, healthy })),
    ).toEqual([
      { team: 'app', archetype: 'coding', status: 'active', state: 'preparing', healthy: true },
      { team: 'docs', archetype: 'deliverable', status: 'active', state: 'preparing', healthy: true },
    ]);
    expect(status.totals).toMatchObject({ teams: 2, runs: 0 });

    const team = await callJson(client, 'fed_team', { team: 'docs' });
    expect(team).toMatchObject({ domainId: 'docs', archetypeId: 'deliverable', lastRun: null });
    expect(team.lifecycle).toMatchObject({ state: 'preparing' });
  }, 60_000);

  it("lists a team's question in fed_needs_you and answers it with fed_send replyTo", async () => {
    const { root, fed } = await federation();
    const asked = await fed(
      'signal',
      'send',
      '--from',
      'docs',
      '--to',
      'meta',
      '--type',
      'question',
      '--subject',
      'Which format?',
      '--json',
    );
    expect(asked.code, asked.stderr).toBe(0);
    const questionId = (JSON.parse(asked.stdout) as { id: string }).id;
    const client = await metaClient(root);

    const waiting = await callJson<{ items: { kind: string; team: string; signalId: string; tool: string }[] }>(
      client,
      'fed_needs_you',
    );
    expect(waiting.items).toEqual([expect.objectContaining({ kind: 'question', team: 'docs', signalId: questionId })]);
    expect(waiting.items[0]!.tool).toContain(`"replyTo":"${questionId}"`);

    const inbox = await callJson<{ signals: { id: string; subject: string; state: string }[] }>(client, 'fed_inbox');
    expect(inbox.signals).toEqual([expect.objectContaining({ id: questionId, subject: 'Which format?' })]);

    const answer = await callJson(client, 'fed_send', {
      to: 'docs',
      type: 'report',
      subject: 'Markdown',
      body: 'one page, with a diagram',
      replyTo: questionId,
    });
    expect(answer).toMatchObject({ to: 'docs', delivered: true, replyTo: questionId });

    const shown = await fed('signal', 'show', questionId, '--json');
    expect((JSON.parse(shown.stdout) as { delivery: { state: string } }).delivery.state).toBe('answered');
    const received = await fed('signal', 'list', '--team', 'docs', '--json');
    expect(
      (JSON.parse(received.stdout) as { signals: { message: { from: string; subject: string } }[] }).signals,
    ).toEqual([expect.objectContaining({ message: expect.objectContaining({ from: 'meta', subject: 'Markdown' }) })]);
    expect((await callJson<{ items: unknown[] }>(client, 'fed_needs_you')).items).toEqual([]);

    // Acknowledged, it leaves meta's inbox.
    const acked = await callJson<{ acknowledged: { id: string }[] }>(client, 'fed_ack', { ids: [questionId] });
    expect(acked.acknowledged.map((ack) => ack.id)).toEqual([questionId]);
    expect((await callJson<{ signals: unknown[] }>(client, 'fed_inbox')).signals).toEqual([]);
  }, 60_000);

  it("refuses a review of a team not in review with the CLI's message, and pauses and resumes a team", async () => {
    const { root, fed } = await federation();
    const client = await metaClient(root);

    const cli = await fed('team', 'review', 'app', '--approve');
    expect(cli.code).toBe(2);
    const refused = await call(client, 'fed_review', { team: 'app', action: 'approve' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(cli.stderr.replace(/^fed: /, '').trim());
    expect(refused.text).toContain('not in review');

    expect(await callJson(client, 'fed_team_control', { team: 'docs', action: 'pause' })).toEqual({
      team: 'docs',
      from: 'active',
      to: 'paused',
    });
    expect(JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout)).toMatchObject({
      status: 'paused',
      lifecycle: { state: 'paused' },
    });
    // Journaled as `fed team pause` journals it.
    const log = JSON.parse((await fed('log', '--team', 'docs', '--json')).stdout) as { kind: string; text: string }[];
    expect(log).toContainEqual(expect.objectContaining({ kind: 'status', text: 'status active → paused' }));
    const again = await call(client, 'fed_team_control', { team: 'docs', action: 'pause' });
    expect(again).toMatchObject({ isError: true });
    expect(again.text).toContain('cannot pause team "docs": it is paused; allowed: fed team resume docs');
    expect(await callJson(client, 'fed_team_control', { team: 'docs', action: 'resume' })).toEqual({
      team: 'docs',
      from: 'paused',
      to: 'active',
    });
    expect(JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout)).toMatchObject({ status: 'active' });
  }, 60_000);

  it('answers bad input with what is accepted, and never sends as a team', async () => {
    const { root, fed } = await federation();
    const client = await metaClient(root);

    const badAction = await call(client, 'fed_team_control', { team: 'docs', action: 'stop' });
    expect(badAction.isError).toBe(true);
    expect(badAction.text).toMatch(/pause.*resume.*retry/);
    const badType = await call(client, 'fed_send', { to: 'docs', type: 'memo', subject: 'hi' });
    expect(badType.isError).toBe(true);
    expect(badType.text).toMatch(/directive.*question.*report.*alert/);
    const asTeam = await call(client, 'fed_send', { to: 'app', type: 'report', subject: 'hi', from: 'docs' });
    expect(asTeam.isError).toBe(true);
    expect(asTeam.text).toContain('from');
    const unknownTeam = await call(client, 'fed_team', { team: 'nobody' });
    expect(unknownTeam).toMatchObject({ isError: true });
    expect(unknownTeam.text).toContain('unknown team "nobody" (registered teams: docs, app)');
    const noChanges = await call(client, 'fed_review', { team: 'app', action: 'request-changes' });
    expect(noChanges).toMatchObject({ isError: true });
    expect(noChanges.text).toContain('request-changes needs the changes to make');
    const noTarget = await call(client, 'fed_ack', {});
    expect(noTarget).toMatchObject({ isError: true });
    expect(noTarget.text).toContain('which signals?');
    // Nothing was sent by any of them.
    const outbox = await fed('signal', 'list', '--box', 'outbox', '--json');
    expect((JSON.parse(outbox.stdout) as { signals: unknown[] }).signals).toEqual([]);
  }, 60_000);

  it('announces a signal that arrives for meta while it runs', async () => {
    const { root, fed } = await federation();
    const client = await metaClient(root);
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => resolve(note.params.uri)),
    );
    await client.subscribeResource({ uri: 'fed://inbox' });
    expect(
      (await fed('signal', 'send', '--from', 'docs', '--to', 'meta', '--type', 'report', '--subject', 'done')).code,
    ).toBe(0);
    expect(await updated).toBe('fed://inbox');
    expect((await call(client, 'fed_needs_you')).notes).toEqual(['new signals: 1 (fed_inbox reads them)']);
    const inbox = await call(client, 'fed_inbox');
    expect(JSON.parse(inbox.text)).toMatchObject({ signals: [{ from: 'docs', subject: 'done' }], more: 0 });
    expect((await call(client, 'fed_needs_you')).notes).toEqual([]);
  }, 60_000);

  it('exits when stdin closes, and refuses to run as a team', async () => {
    const { root } = await federation();
    const server = spawn(process.execPath, [FED_BIN, '--root', root, 'mcp', '--meta'], { env: fedEnv() });
    server.stdin.end();
    const [code] = (await once(server, 'exit')) as [number | null];
    expect(code).toBe(0);

    const asTeam = await runFed(['--root', root, 'mcp', '--meta'], { env: { FED_TEAM: 'docs' } });
    expect(asTeam.code).toBe(2);
    expect(asTeam.stderr).toContain('this command runs as team "docs"');
  }, 60_000);
});
