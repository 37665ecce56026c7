import type { SignalMessage } from '../../core/schema/signal.js';
import { notifyNeedsYou } from './notify-needs-you.js';
import { signalNeedsYou } from './signal-items.js';
import type { Federation } from '../../engine/context.js';

/**
 * After `fed signal send`: a question or an escalation to meta is told right away (once; a failed telling
 * is tried again by the next `fed monitor` cycle, launch or run). Returns the warnings.
 */
export async function tellSentSignal(fed: Federation, message: SignalMessage): Promise<string[]> {
  const item = signalNeedsYou(message);
  if (!item) return [];
  return (await notifyNeedsYou(fed, async () => [item], { command: 'signal' })).warnings;
}
