import { AgentHostChatChannel } from '../chat/agent-host-channel.js';
import { signed } from '../chat/signature.js';
import type { LoadedHooks } from '../../engine/hooks/load-hooks.js';
import type { NeedsYouItem, NotifyChannel } from '../../core/schema/needs-you.js';
import { claimItem, isNotified, markNotified, releaseItem } from './notify-marks.js';
import { runNotifyCommand } from './notify-command.js';
import { notifyChannels } from './notify-channels.js';
import type { Federation } from '../../engine/context.js';

export interface NotifyOptions {
  /** The hooks the command loaded: their onNeedsYou is a channel. */
  hooks?: LoadedHooks;
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

/** The channel's way of telling an item; the chat channel is made on first use. */
function tellerFor(fed: Federation, channel: NotifyChannel, options: NotifyOptions): Teller {
  const { config } = fed;
  if (channel === 'command')
    return { channel, tell: (item) => runNotifyCommand(fed, config.notify!, item, options.signal) };
  if (channel === 'hook')
    return {
      channel,
      tell: async (item) => {
        const warning = await options.hooks!.notify('onNeedsYou', item);
        if (warning) throw new Error(warning);
      },
    };
  // A chat config that cannot work costs a warning per item, never the command.
  let chat: AgentHostChatChannel | undefined;
  return {
    channel,
    tell: async (item) => {
      chat ??= new AgentHostChatChannel({ root: fed.root, config, env: fed.env, signal: options.signal });
      await chat.post(signed(`needs you — ${item.summary}\n${item.action}`, config.federationName));
    },
  };
}

/**
 * Tell people about the items waiting on them that were not told yet: each item once per channel (the
 * notify command, the onNeedsYou hook, the chat channel), across passes and concurrent processes. Per
 * item: claim it (a process telling it now is left to it), send through each channel that has not had it,
 * and mark it sent there. A send that fails is a warning and is tried again on a later pass; one marked is
 * never sent again. A crash between a send and its mark is the one case that sends again.
 *
 * `items` is only computed when a channel is there (notify-channels.ts), so a command that runs often
 * pays nothing without one. Never throws: the state it tells about is saved already.
 */
export async function notifyNeedsYou(
  fed: Federation,
  items: () => Promise<readonly NeedsYouItem[]>,
  options: NotifyOptions,
): Promise<NotifyResult> {
  const result: NotifyResult = { told: [], warnings: [] };
  const tellers = notifyChannels(fed.config, options.hooks).map((channel) => tellerFor(fed, channel, options));
  if (tellers.length === 0) return result;
  try {
    const unsent = (item: NeedsYouItem, channel: NotifyChannel) => !isNotified(fed, item.id, channel);
    for (const item of await items()) {
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
