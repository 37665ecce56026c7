import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileChatChannel } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { FIXTURES_DIR, waitFor } from '../helpers/fixture-process.js';
import { signalFederation } from '../helpers/signal-federation.js';

const HOST = `'${process.execPath}' '${join(FIXTURES_DIR, 'chat-host.mjs')}'`;
const CHAT = { teamId: '5f2b1c3e-0000-4000-8000-000000000000', channelId: '19:abc123@thread.tacv2', command: HOST };

/** A federation with team docs and the given config, its chat channel kept by the fake agent host. */
async function federation(config: Record<string, unknown>) {
  const { root } = await signalFederation(['docs']);
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config));
  const store = join(root, 'channel.jsonl');
  const env = { FAKE_CHAT_STORE: store };
  const fed = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runFed(['--root', root, ...args], { env: { ...env, ...extraEnv } });
  const channel = () =>
    readFileSync(store, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; at: string; author: string; text: string });
  const say = (text: string) =>
    writeFileSync(
      store,
      `${JSON.stringify({ id: randomUUID(), at: new Date().toISOString(), author: 'alice', text })}\n`,
      { flag: 'a' },
    );
  return { root, fed, channel, say };
}

describe('fed chat bridge', () => {
  it('exits 2 without chatConfig, saying how to configure it or use --file', async () => {
    const { fed } = await federation({ federationName: 'acme' });
    const result = await fed(['chat', 'bridge', '--once']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /fed: chatConfig is not set in .*federate\.config\.json: add "chatConfig": \{"teamId": .*or pass --file/,
    );
  });

  it('exits 2 naming federationName when chatConfig is set without it, and writes nothing', async () => {
    const { fed, root } = await federation({ chatConfig: CHAT });
    const result = await fed(['chat', 'bridge', '--once']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'federate.config.json is invalid:\n  - federationName: required by the chat bridge',
    );
    expect(() => readFileSync(join(root, '.fed', 'chat', 'bridge-state.json'))).toThrow(/ENOENT/);
  });

  it('reports every configuration problem at once: no federationName and no agent host with a chat tool', async () => {
    const { fed } = await federation({ chatConfig: { teamId: CHAT.teamId, channelId: CHAT.channelId } });
    const result = await fed(['chat', 'bridge', '--once']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /federate\.config\.json is invalid:\n {2}- federationName: required by the chat bridge.*\n {2}- chatConfig\.command: the chat channel needs an agent host with a chat tool/,
    );
  });

  it.each([[['--interval', '0']], [['--interval', 'soon']]])('bad input %j exits 2', async (args) => {
    const { fed } = await federation({ federationName: 'acme', chatConfig: CHAT });
    const result = await fed(['chat', 'bridge', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected a number of seconds > 0');
  });

  it('polls through the agent host, runs the command and posts the reply there', async () => {
    const { fed, channel, say } = await federation({ federationName: 'acme', chatConfig: CHAT });
    expect((await fed(['chat', 'bridge', '--once'])).code).toBe(0); // first start: from now on
    say('<p><at>acme</at>&nbsp;pause docs</p>');
    say('lunch?');
    const result = await fed(['chat', 'bridge', '--once']);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(/alice: pause docs\n {2}\[acme\] docs: active → paused\n/);
    expect(channel().map((m) => m.text)).toEqual([
      '<p><at>acme</at>&nbsp;pause docs</p>',
      'lunch?',
      '[acme] docs: active → paused',
    ]);
    expect((await fed(['team', 'show', 'docs', '--json'])).stdout).toContain('"status": "paused"');
    // Run again: nothing new to do, nothing posted twice.
    expect((await fed(['chat', 'bridge', '--once'])).code).toBe(0);
    expect(channel()).toHaveLength(3);
  });

  it('--once exits 1 when the agent host cannot read the channel', async () => {
    const { fed } = await federation({ federationName: 'acme', chatConfig: CHAT });
    const result = await fed(['chat', 'bridge', '--once'], { FAKE_CHAT_FAIL: 'poll' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(chatConfig.command) exited with code 1: chat tool: 401 the session has expired');
  });

  it('keeps polling every --interval until interrupted, then exits 0', async () => {
    const { root } = await federation({ federationName: 'acme' });
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'chat', 'bridge', '--file', '--interval', '0.2'], {
      env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => stderr.includes('every 0.2 s until interrupted'), 15_000, 'the bridge to start');
    const alice = new FileChatChannel(root, { author: 'alice' });
    await alice.post('@acme pause docs');
    await waitFor(() => stdout.includes('docs: active → paused'), 15_000, 'the first reply');
    await alice.post('@acme resume docs');
    await waitFor(() => stdout.includes('docs: paused → active'), 15_000, 'the second reply');
    child.kill('SIGINT');
    expect(await closed).toBe(0);
  });

  it('--file answers in the offline file channel', async () => {
    const { fed, root } = await federation({ federationName: 'acme' });
    expect((await fed(['chat', 'bridge', '--once', '--file'])).code).toBe(0);
    await new FileChatChannel(root, { author: 'alice' }).post('@acme status docs');
    const result = await fed(['chat', 'bridge', '--once', '--file']);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const { messages } = await new FileChatChannel(root).poll('1970-01-01T00:00:00Z');
    const reply = messages.find((m) => m.author === 'acme');
    expect(reply?.text).toMatch(
      /^\[acme\] docs \(deliverable, active\), last active .*\nlifecycle: deliverable, preparing/,
    );
  });
});

describe('fed monitor with chatConfig', () => {
  it('posts a status summary after every cycle', async () => {
    const { fed, channel } = await federation({ federationName: 'acme', chatConfig: CHAT });
    const result = await fed(['monitor']);
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(channel().map((m) => m.text)).toEqual([
      expect.stringMatching(
        /^\[acme\] monitor .*: 1 team, 1 healthy, 0 unhealthy; 0 unacknowledged signals \(meta: 0\)\n- docs \(deliverable, active\): preparing/,
      ),
    ]);
  });

  it('a summary that cannot be posted is a warning; the cycle and its exit code stand', async () => {
    const { fed } = await federation({ federationName: 'acme', chatConfig: CHAT });
    const result = await fed(['monitor', '--json'], { FAKE_CHAT_FAIL: 'post' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ totals: { teams: 1 } });
    expect(result.stderr).toMatch(
      /^warning: the status summary was not posted to the chat channel: the chat agent .* exited with code 1/,
    );
  });

  it('says when the chat channel would go to the built-in agent, which has no chat tool', async () => {
    const { fed } = await federation({
      federationName: 'acme',
      chatConfig: { teamId: CHAT.teamId, channelId: CHAT.channelId },
    });
    const monitor = await fed(['monitor']);
    expect(monitor.code).toBe(0);
    expect(monitor.stderr).toContain(
      'warning: the status summary was not posted to the chat channel: the chat channel needs an agent host with a chat tool, and the built-in agent fed-agent has none; set chatConfig.command',
    );
    const bridge = await fed(['chat', 'bridge', '--once']);
    expect(bridge.code).toBe(2);
    expect(bridge.stderr).toMatch(
      /federate\.config\.json is invalid:\n {2}- chatConfig\.command: the chat channel needs an agent host with a chat tool/,
    );
  });

  it('posts nothing without chatConfig', async () => {
    const { fed, root } = await federation({ federationName: 'acme' });
    expect((await fed(['monitor'])).code).toBe(0);
    expect(() => readFileSync(join(root, 'channel.jsonl'))).toThrow(/ENOENT/);
  });
});
