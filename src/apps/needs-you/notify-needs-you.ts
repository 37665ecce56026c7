import { AgentHostChatChannel } from '../chat/agent-host-channel.js';
import { signed } from '../chat/signature.js';
import { loadHooks, type LoadedHooks } from '../../engine/hooks/load-hooks.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { NeedsYouItem, NotifyChannel } from '../../core/schema/needs-you.js';
import { claimItem, isNotified, markNotified, releaseItem } from './notify-marks.js';
import { runNotifyCommand } from './notify-command.js';
import { notifyConfigured } from './notify-configured.js';
import type { Federation } from '../../engine/context.js';

export interface NotifyOptions {
  /** The hooks the command loaded; without them, the importHook module is loaded once there is something to tell. */
  hooks?: LoadedHooks;
  /** The command telling (`launch`, `monitor`, …): a hook module loaded here gets it in onInit. */
  command: string;
  /** Stops a notify command or chat session that is running. */
  signal?: AbortSignal;
  /** Write the marks without fsync (tests). */
  durable?: boolean;
}

export interface NotifyResult {
  /** The items told through at least one channel by this call. */
  told: NeedsYouItem[];
  /** What could not be told (tried again on a later pass), or read. */
  warnings: string[];
}

interface Teller {
  channel: NotifyChannel;
  tell(item: NeedsYouItem): Promise<void>;
}

/** The channels the config names (the hook's only if the module turns out to export onNeedsYou). */
function configuredChannels(config: FederationConfig): NotifyChannel[] {
  const channels: NotifyChannel[] = [];
  if (config.notify) channels.push('command');
  if (config.importHook) channels.push('hook');
  if (config.chatConfig) channels.push('chat');
  return channels;
}

async function openTellers(fed: Federation, options: NotifyOptions, warnings: string[]): Promise<Teller[]> {
  const { config } = fed;
  const tellers: Teller[] = [];
  const { notify } = config;
  if (notify) tellers.push({ channel: 'command', tell: (item) => runNotifyCommand(fed, notify, item, options.signal) });
  if (config.importHook) {
    let hooks = options.hooks;
    try {
      hooks ??= await loadHooks(fed.root, config, options.command);
    } catch (error) {
      warnings.push(`the onNeedsYou hook was not called: ${(error as Error).message}`);
    }
    const loaded = hooks;
    if (loaded?.hooks.includes('onNeedsYou'))
      tellers.push({
        channel: 'hook',
        tell: async (item) => {
          const warning = await loaded.notify('onNeedsYou', item);
          if (warning) throw new Error(warning);
        },
      });
  }
  if (config.chatConfig) {
    // Made on first use: a chat config that cannot work costs a warning per item, never the command.
    let channel: AgentHostChatChannel | undefined;
    tellers.push({
      channel: 'chat',
      tell: async (item) => {
        channel ??= new AgentHostChatChannel({ root: fed.root, config, env: fed.env, signal: options.signal });
        await channel.post(signed(`needs you — ${item.summary}\n${item.action}`, config.federationName));
      },
    });
  }
  return tellers;
}

/**
 * Tell people about the items waiting on them that were not told yet: each item once per channel (the
 * notify command, the onNeedsYou hook, the chat channel), across passes and concurrent processes. Per
 * item: claim it (a process telling it now is left to it), send through each channel that has not had it,
 * and mark it sent there. A send that fails is a warning and is tried again on a later pass; one marked is
 * never sent again. A crash between a send and its mark is the one case that sends again.
 *
 * `items` is only computed when something is configured, so a command that runs often pays nothing
 * without a notify config. Never throws: the state it tells about is saved already.
 */
export async function notifyNeedsYou(
  fed: Federation,
  items: () => Promise<readonly NeedsYouItem[]>,
  options: NotifyOptions,
): Promise<NotifyResult> {
  const result: NotifyResult = { told: [], warnings: [] };
  if (!notifyConfigured(fed.config)) return result;
  try {
    const channels = configuredChannels(fed.config);
    const unsent = (item: NeedsYouItem, channel: NotifyChannel) => !isNotified(fed, item.id, channel);
    const pending = (await items()).filter((item) => channels.some((channel) => unsent(item, channel)));
    if (pending.length === 0) return result;
    const tellers = await openTellers(fed, options, result.warnings);
    for (const item of pending) {
      if (!tellers.some((teller) => unsent(item, teller.channel))) continue;
      const claim = await claimItem(fed, item.id);
      if (!claim) continue;
      try {
        let told = false;
        for (const teller of tellers) {
          // Again under the claim: another process may have told it since the look above.
          if (!unsent(item, teller.channel)) continue;
          try {
            await teller.tell(item);
          } catch (error) {
            result.warnings.push(
              `${item.id} was not told through ${teller.channel} (tried again later): ${(error as Error).message}`,
            );
            continue;
          }
          markNotified(fed, item.id, teller.channel, { durable: options.durable });
          told = true;
        }
        if (told) result.told.push(item);
      } finally {
        releaseItem(claim);
      }
    }
  } catch (error) {
    result.warnings.push(`the items waiting on a person could not be told: ${(error as Error).message}`);
  }
  return result;
}
