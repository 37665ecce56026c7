import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentHostChatChannel, type FederationConfigInput, validateConfig } from 'fed/testing';
import { FIXTURES_DIR, isAlive, readPid, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const HOST = `'${process.execPath}' '${join(FIXTURES_DIR, 'chat-host.mjs')}'`;
const CHAT = { teamId: '5f2b1c3e-0000-4000-8000-000000000000', channelId: '19:abc123@thread.tacv2' };

/** A channel through the fake agent host, with its channel store and session log in a temp dir. */
function channel(chat: Partial<NonNullable<FederationConfigInput['chatConfig']>> = {}, env: NodeJS.ProcessEnv = {}) {
  const root = tempDir();
  const store = join(root, 'channel.jsonl');
  const log = join(root, 'sessions.jsonl');
  const config = validateConfig(
    { federationName: 'acme', chatConfig: { ...CHAT, command: HOST, ...chat } },
    'federate.config.json',
  ).config;
  const sessions = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            argv: string[];
            cwd: string;
            root: string;
            prompt: string;
            request: Record<string, unknown>;
          },
      );
  return {
    root,
    store,
    sessions,
    channel: new AgentHostChatChannel({
      root,
      config,
      env: { ...process.env, FAKE_CHAT_STORE: store, FAKE_CHAT_LOG: log, ...env },
    }),
  };
}

describe('the agent-host chat channel', () => {
  it('posts through one agent session whose prompt names the team and channel and carries the text', async () => {
    const { channel: chat, store, sessions, root } = channel();
    await chat.post('[acme] hello\n@acme is here');
    const [session] = sessions();
    expect(session!.request).toEqual({ op: 'post', ...CHAT, text: '[acme] hello\n@acme is here' });
    expect(session!.prompt).toContain(`team id ${CHAT.teamId} and channel id ${CHAT.channelId}`);
    expect(session!.prompt).toContain('====\n[acme] hello\n@acme is here\n====');
    expect(session).toMatchObject({ cwd: root, root });
    expect(readFileSync(store, 'utf8')).toContain('"text":"[acme] hello\\n@acme is here"');
  });

  it('polls: messages since the given time, the invalid ones reported, chatter ignored', async () => {
    const { channel: chat, store, sessions } = channel();
    const lines = [
      { id: 'old', at: '2026-01-01T00:00:00.000Z', author: 'bob', text: 'before' },
      { id: 'm1', at: '2026-01-31T12:00:00.000Z', author: 'alice', text: '<at>acme</at> status' },
      { id: 'bad', text: 'no time' },
    ];
    writeFileSync(store, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const poll = await chat.poll('2026-01-31T00:00:00.000Z');
    expect(poll.messages).toEqual([lines[1]]);
    expect(poll.problems).toHaveLength(1);
    expect(poll.problems[0]).toMatch(/^message 1 from the chat agent: at: /);
    expect(sessions()[0]!.request).toEqual({ op: 'poll', ...CHAT, since: '2026-01-31T00:00:00.000Z' });
  });

  it('puts the prompt where chatConfig.command says {prompt}, else last', async () => {
    const placed = channel({ command: `${HOST} --prompt={prompt} --quiet` });
    await placed.channel.post('x');
    const argv = placed.sessions()[0]!.argv;
    expect(argv[0]).toMatch(/^--prompt=You are the chat relay/);
    expect(argv.at(-1)).toBe('--quiet');
    const appended = channel();
    await appended.channel.post('x');
    expect(appended.sessions()[0]!.argv.at(-1)).toMatch(/^You are the chat relay/);
  });

  it('fails clearly: an agent that exits non-zero, one that never confirms, one that is not there', async () => {
    await expect(channel({}, { FAKE_CHAT_FAIL: 'post' }).channel.post('x')).rejects.toThrow(
      /exited with code 1: chat tool: 401 the session has expired/,
    );
    await expect(channel({}, { FAKE_CHAT_MUTE: '1' }).channel.poll('2026-01-01T00:00:00Z')).rejects.toThrow(
      /printed no \{"messages": \[\.\.\.\]\} line; it printed: Sure, I will use the chat tool\./,
    );
    await expect(channel({ command: 'fed-no-such-chat-agent' }).channel.post('x')).rejects.toThrow(
      /cannot start the chat agent "fed-no-such-chat-agent" \(chatConfig.command\): not found on PATH/,
    );
  });

  it('stops a session that runs past chatConfig.timeoutSeconds, and whatever it started', async () => {
    const pidFile = join(tempDir(), 'tool.pid');
    // Long enough for the session to start and name its tool on a loaded machine.
    const { channel: chat } = channel({ timeoutSeconds: 5 }, { FAKE_CHAT_HANG: pidFile });
    const started = Date.now();
    await expect(chat.poll('2026-01-01T00:00:00Z')).rejects.toThrow(/did not finish within 5 s and was stopped/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const tool = readPid(pidFile);
    await waitFor(() => !isAlive(tool), 15_000, 'the tool process to be gone');
  });

  it('uses agentCommand when chatConfig.command is not set', () => {
    const root = tempDir();
    const config = validateConfig({ agentCommand: 'claude -p', chatConfig: CHAT }, 'federate.config.json').config;
    expect(new AgentHostChatChannel({ root, config }).description).toBe(
      `channel ${CHAT.channelId} through the agent host "claude"`,
    );
  });
});
