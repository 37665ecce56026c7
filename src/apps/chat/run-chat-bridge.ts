import { ConfigValidationError, RefusedError } from '../../core/errors.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import { federationPaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { repeatEvery } from '../../infra/repeat.js';
import { AgentHostChatChannel } from './agent-host-channel.js';
import { chatHostProblem, federationNameProblem } from './bridge-config.js';
import { ChatBridge, type BridgeActivity } from './chat-bridge.js';
import type { ChatChannel } from './chat-channel.js';
import { FileChatChannel } from './file-channel.js';
import type { Federation } from '../../engine/context.js';

export interface RunChatBridgeOptions {
  config: FederationConfig;
  /** Use the offline file channel `.fed/chat/messages/` instead of the agent host. */
  file?: boolean;
  /** Poll every this many ms until `signal` aborts; with `once`, poll once (and wait for the launches it started). */
  intervalMs: number;
  once?: boolean;
  signal?: AbortSignal;
  hooks?: LoadedHooks;
  /** Environment of the agent host sessions (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Told where the bridge listens, once it has started. */
  onStart?: (channelDescription: string) => void;
  onActivity?: (activity: BridgeActivity) => void;
}

/**
 * `fed chat bridge`: the chat presence bridge (docs/design/spec.md §6), polling its channel until interrupted. A poll
 * that fails is tried again at the next interval (reported as a warning); with `once` it is the outcome.
 */
export async function runChatBridge(fed: Federation, options: RunChatBridgeOptions): Promise<void> {
  const { root } = fed;
  const { config } = options;
  // A polling bridge sends a person's signals for as long as it runs: they check a watched registry.
  if (!options.once) fed.watchRegistry();
  const paths = federationPaths(root);
  if (!config.chatConfig && !options.file) {
    throw new RefusedError(
      'NO_CHAT_CONFIG',
      `chatConfig is not set in ${paths.config}: add "chatConfig": {"teamId": "<team GUID>", "channelId": "19:…@thread.tacv2"} ` +
        `and "federationName", or pass --file to use the offline file channel ${paths.chatMessages}`,
    );
  }
  // Every problem at once: a user who fixes one should not meet the next only on the following try.
  const problems = [
    federationNameProblem(config, paths.config),
    options.file ? undefined : chatHostProblem(config),
  ].filter((p) => p !== undefined);
  if (problems.length > 0) throw new ConfigValidationError(paths.config, problems);
  const channel: ChatChannel = options.file
    ? new FileChatChannel(root, { author: config.federationName })
    : new AgentHostChatChannel({ root, config, env: options.env, signal: options.signal });
  const bridge = await ChatBridge.open({
    fed,
    config,
    channel,
    hooks: options.hooks,
    signal: options.signal,
    onActivity: options.onActivity,
  });
  options.onStart?.(channel.description);
  try {
    await repeatEvery(options.once ? undefined : options.intervalMs, options.signal, async () => {
      try {
        await bridge.pollOnce();
      } catch (error) {
        if (options.once || options.signal?.aborted) throw error;
        options.onActivity?.({
          kind: 'warning',
          text: `polling ${channel.description} failed, retrying in ${options.intervalMs / 1000} s: ${(error as Error).message}`,
        });
      }
    });
  } finally {
    await bridge.close();
  }
}
