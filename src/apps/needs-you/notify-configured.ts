import type { FederationConfig } from '../../core/schema/config.js';

/**
 * Whether anything could tell people what waits on them: without `notify`, `chatConfig` or `importHook`
 * nothing is computed or written. Its own module, so a command that runs often (`fed signal send`) asks
 * without loading the notifier.
 */
export function notifyConfigured(config: FederationConfig): boolean {
  return config.notify !== undefined || config.chatConfig !== undefined || config.importHook !== undefined;
}
