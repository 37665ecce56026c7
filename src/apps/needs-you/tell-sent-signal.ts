import type { SignalMessage } from '../../core/schema/signal.js';
import { notifyNeedsYou } from './notify-needs-you.js';
import { signalNeedsYou } from './signal-items.js';
import type { Federation } from '../../engine/context.js';

/**
 * After `fed signal send`: a question or an escalation to meta is told right away through the notify
 * command and the chat channel (once; a failed telling, and the onNeedsYou hook of the hook module this
 * command does not load, is done by the next `fed monitor` cycle, launch or run). Returns the warnings.
 */
export async function tellSentSignal(fed: Federation, message: SignalMessage): Promise<string[]> {
  const item = signalNeedsYou(message);
  if (!item) return [];
  return (await notifyNeedsYou(fed, async () => [item], {})).warnings;
}
