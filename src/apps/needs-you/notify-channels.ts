import type { FederationConfig } from '../../core/schema/config.js';
import type { NotifyChannel } from '../../core/schema/needs-you.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';

/**
 * The channels that can tell people what waits on them: the `notify` command, the `onNeedsYou` hook of
 * the hook module the command loaded, the chat channel. Its own module, so a command that runs often
 * (`fed signal send`) asks without loading the notifier: with none, nothing is computed or written.
 */
export function notifyChannels(config: FederationConfig, hooks?: LoadedHooks): NotifyChannel[] {
  const channels: NotifyChannel[] = [];
  if (config.notify) channels.push('command');
  if (hooks?.hooks.includes('onNeedsYou')) channels.push('hook');
  if (config.chatConfig) channels.push('chat');
  return channels;
}
