import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigValidationError, openFederation, RefusedError } from 'fed';
import {
  type BridgeActivity,
  CHAT_POLL_LIMIT,
  ChatBridge,
  type ChatChannel,
  type ChatMessage,
  type FederationConfigInput,
  federationPaths,
  FileChatChannel,
  getTeam,
  readRegistry,
  statusOf,
  validateConfig,
  workspacePaths,
} from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { signalFederation } from '../helpers/signal-federation.js';

/** A clock that moves a second per reading, so message times are distinct and ordered. */
function clock(start = Date.parse('2026-01-31T12:00:00.000Z')): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

async function bridgeFor(
  root: string,
  options: { config?: FederationConfigInput; channel?: ChatChannel; now?: () => Date } = {},
) {
  const config = validateConfig({ federationName: 'acme', ...options.config }, 'federate.config.json').config;
  const now = options.now ?? clock();
  const activity: BridgeActivity[] = [];
  const channel = options.channel ?? new FileChatChannel(root, { author: 'acme', durable: false, now });
  const bridge = await ChatBridge.open({
    fed: openFederation(root),
    config,
    channel,
    now,
    onActivity: (a) => activity.push(a),
  });
  return { bridge, activity, config, now };
}

/** A person posting in the file channel. */
function person(root: string, now: () => Date) {
  return new FileChatChannel(root, { author: 'alice', durable: false, now });
}

async function channelTexts(root: string): Promise<string[]> {
  const { messages } = await new FileChatChannel(root).poll('1970-01-01T00:00:00Z');
  return messages.sort((a, b) => a.at.localeCompare(b.at)).map((m) => m.text);
}

const repliesIn = async (root: string) => (await channelTexts(root)).filter((t) => t.startsWith('[acme]'));

describe('the chat bridge', () => {
  it('runs the commands addressed to @acme through the library and replies to each; other messages are left alone', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    const { bridge, activity } = await bridgeFor(root, { now });
    const alice = person(root, now);
    await alice.post('good morning everyone');
    await alice.post('<p><at>acme</at> status</p>');
    await alice.post('@acme send docs directive Write the architecture doc\nCover src/ and the CLI.');
    await alice.post('@acme pause docs');
    await alice.post('@acme dance');
    await alice.post('@acme monitor');
    expect(await bridge.pollOnce()).toBe(5);
    await bridge.close();

    const replies = await repliesIn(root);
    expect(replies).toHaveLength(5);
    expect(replies[0]).toBe('[acme] 1 team:\n- docs (deliverable, active): preparing');
    expect(replies[1]).toMatch(
      /^\[acme\] sent directive "Write the architecture doc" to docs \(.*-directive-write-the-architecture-doc\.json\)$/,
    );
    expect(replies[2]).toBe('[acme] docs: active → paused');
    expect(replies[3]).toMatch(/^\[acme\] unknown command "dance"; commands — write @acme <command>:\n@acme status/);
    expect(replies[4]).toMatch(/^\[acme\] monitor .*: 1 team, 1 healthy, 0 unhealthy/);

    const inbox = readdirSync(workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox).filter((n) =>
      n.endsWith('.json'),
    );
    expect(inbox).toHaveLength(1);
    const signal = JSON.parse(
      readFileSync(`${workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox}/${inbox[0]}`, 'utf8'),
    ) as { from: string; body: string };
    expect(signal).toMatchObject({ from: 'meta', body: 'Cover src/ and the CLI.' });
    expect(statusOf(getTeam(readRegistry(root), 'docs'))).toBe('paused');
    expect(activity.filter((a) => a.kind === 'command').map((a) => (a as { command: string }).command)).toEqual([
      'status',
      'send docs directive Write the architecture doc',
      'pause docs',
      'dance',
      'monitor',
    ]);
  });

  it('a failing command gets an error reply, and the commands after it still run', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    const { bridge, activity } = await bridgeFor(root, { now });
    await person(root, now).post('@acme resume docs');
    await person(root, now).post('@acme send ghost directive Hello');
    await person(root, now).post('@acme pause docs');
    expect(await bridge.pollOnce()).toBe(3);
    await bridge.close();
    expect(await repliesIn(root)).toEqual([
      '[acme] "resume docs" failed: cannot resume team "docs": it is active; allowed: fed team pause docs, fed team archive docs',
      expect.stringMatching(/^\[acme\] "send ghost directive Hello" failed: .*"ghost"/),
      '[acme] docs: active → paused',
    ]);
    expect(activity.filter((a) => a.kind === 'command').map((a) => (a as { failed: boolean }).failed)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('never takes its own messages for commands, and ignores what was posted before its first start', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    await person(root, now).post('@acme pause docs'); // history: before the bridge ever ran
    const { bridge } = await bridgeFor(root, { now });
    await person(root, now).post('@acme help');
    expect(await bridge.pollOnce()).toBe(1);
    // The help reply quotes "@acme status" and more; polling again finds it and does nothing.
    expect(await bridge.pollOnce()).toBe(0);
    await bridge.close();
    expect(await repliesIn(root)).toHaveLength(1);
    expect(statusOf(getTeam(readRegistry(root), 'docs'))).toBe('active');
  });

  it('handles each message once across restarts', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    const first = await bridgeFor(root, { now });
    await person(root, now).post('@acme send docs question Which services are in scope?');
    expect(await first.bridge.pollOnce()).toBe(1);
    await first.bridge.close();
    const second = await bridgeFor(root, { now });
    expect(await second.bridge.pollOnce()).toBe(0);
    await person(root, now).post('@acme status');
    expect(await second.bridge.pollOnce()).toBe(1);
    await second.bridge.close();
    expect(await repliesIn(root)).toHaveLength(2);
    expect(
      readdirSync(workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox).filter((n) =>
        n.endsWith('.json'),
      ),
    ).toHaveLength(1);
  });

  it('a reply that cannot be posted stays queued in the state file and is posted after a restart, without running the command again', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    const files = new FileChatChannel(root, { author: 'acme', durable: false, now });
    let down = true;
    const flaky: ChatChannel = {
      description: 'a flaky channel',
      post: async (text) => {
        if (down) throw new Error('503 service unavailable');
        await files.post(text);
      },
      poll: (since) => files.poll(since),
    };
    const first = await bridgeFor(root, { now, channel: flaky });
    await person(root, now).post('@acme send docs directive Ship it');
    expect(await first.bridge.pollOnce()).toBe(1);
    await first.bridge.close();
    expect(first.activity).toContainEqual({
      kind: 'warning',
      text: expect.stringContaining(
        'a reply could not be posted to a flaky channel; it stays queued: 503 service unavailable',
      ),
    });
    const state = JSON.parse(readFileSync(federationPaths(root).chatBridgeState, 'utf8')) as {
      outbox: { text: string }[];
      handled: unknown[];
    };
    expect(state.outbox).toHaveLength(1);
    expect(state.handled).toHaveLength(1);

    down = false;
    const second = await bridgeFor(root, { now, channel: flaky });
    expect(await second.bridge.pollOnce()).toBe(0);
    await second.bridge.close();
    expect(await repliesIn(root)).toEqual([expect.stringMatching(/^\[acme\] sent directive "Ship it" to docs/)]);
    expect(
      readdirSync(workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox).filter((n) =>
        n.endsWith('.json'),
      ),
    ).toHaveLength(1);
  });

  it('a send run again after a crash delivers nothing twice (its signal id comes from the chat message)', async () => {
    const { root } = await signalFederation(['docs']);
    const now = clock();
    const first = await bridgeFor(root, { now });
    await person(root, now).post('@acme send docs directive Ship it');
    await first.bridge.pollOnce();
    await first.bridge.close();
    // The crash came after the command ran, before the state file recorded it.
    const message = (await new FileChatChannel(root).poll('1970-01-01T00:00:00Z')).messages.find(
      (m: ChatMessage) => m.author === 'alice',
    )!;
    rmSync(federationPaths(root).chatBridgeState);
    const second = await bridgeFor(root, { now: clock(Date.parse(message.at) - 5_000) });
    expect(await second.bridge.pollOnce()).toBe(1);
    await second.bridge.close();
    const replies = await repliesIn(root);
    expect(replies).toHaveLength(2);
    expect(replies).toContainEqual(
      expect.stringMatching(/^\[acme\] directive "Ship it" to docs was already sent \(.*-directive-ship-it\.json\)$/),
    );
    expect(
      readdirSync(workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox).filter((n) =>
        n.endsWith('.json'),
      ),
    ).toHaveLength(1);
  });

  it('launch runs the team in the background and posts its outcome when the agent is done', async () => {
    const { root } = await federationWithMission();
    const now = clock(Date.now());
    const { bridge, activity } = await bridgeFor(root, { now, config: { agentCommand: fakeAgent('complete') } });
    await person(root, now).post('@acme launch docs');
    expect(await bridge.pollOnce()).toBe(1);
    await bridge.close();
    expect(await repliesIn(root)).toEqual([
      '[acme] launching docs; the outcome is posted here when its agent finishes',
      `[acme] launch of docs complete: ${getTeam(readRegistry(root), 'docs').location}/deliverable.md`,
    ]);
    expect(activity.map((a) => a.kind)).toEqual(['command', 'launch-finished']);
  });

  it('throws without federationName (docs/design/spec.md §7), and refuses a second bridge on the same federation', async () => {
    const { root } = await signalFederation(['docs']);
    const config = validateConfig(
      { chatConfig: { teamId: 't', channelId: '19:a@thread.tacv2' } },
      'federate.config.json',
    ).config;
    const error = await ChatBridge.open({
      fed: openFederation(root),
      config,
      channel: new FileChatChannel(root),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).problems.map((p) => p.path)).toEqual(['federationName']);
    expect(existsSync(federationPaths(root).chatBridgeState)).toBe(false);

    const { bridge } = await bridgeFor(root);
    await expect(bridgeFor(root)).rejects.toThrow(RefusedError);
    await expect(bridgeFor(root)).rejects.toThrow(/another chat bridge is running/);
    await bridge.close();
    await (await bridgeFor(root)).bridge.close();
  });
});

describe('the chat bridge on a busy channel', () => {
  it('pages through more than a full poll within a minute instead of seeing the same page forever', async () => {
    const { root } = await signalFederation(['docs']);
    // 100 ms per reading: 150 messages fit in the bridge's one-minute look-back.
    let t = Date.parse('2026-01-31T12:00:00.000Z');
    const now = () => new Date((t += 100));
    const file = new FileChatChannel(root, { author: 'acme', durable: false, now });
    // What the agent host returns: at most a page, oldest first.
    const paged: ChatChannel = {
      description: 'paged file channel',
      post: (text) => file.post(text),
      poll: async (since) => {
        const { messages, problems } = await file.poll(since);
        const sorted = messages.filter((m) => m.at >= since).sort((a, b) => a.at.localeCompare(b.at));
        return { messages: sorted.slice(0, CHAT_POLL_LIMIT), problems };
      },
    };
    const { bridge, activity } = await bridgeFor(root, { now, channel: paged });
    const alice = person(root, now);
    for (let i = 0; i < CHAT_POLL_LIMIT + 50; i++) await alice.post(`chatter ${i}`);
    await alice.post('@acme status');
    for (let poll = 0; poll < 4 && !activity.some((a) => a.kind === 'command'); poll++) await bridge.pollOnce();
    expect(activity.filter((a) => a.kind === 'command')).toHaveLength(1);
    await bridge.close();
  });
});
