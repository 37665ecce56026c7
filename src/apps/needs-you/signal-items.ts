import { META } from '../../core/schema/common.js';
import { SUMMARY_MAX, type NeedsYouItem } from '../../core/schema/needs-you.js';
import type { SignalMessage } from '../../core/schema/signal.js';
import type { SignalInbox } from '../../ports/signal-transport.js';
import type { Federation } from '../../engine/context.js';

/**
 * The items of meta's inbox (needs-you.ts): questions to meta, and escalations. Light on purpose:
 * `fed signal send` tells the signal it sent through here, and must not load lifecycles to do it.
 */

/** One line, at most SUMMARY_MAX characters: the whole text is one command away (the item's action). */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= SUMMARY_MAX ? line : `${line.slice(0, SUMMARY_MAX - 1)}…`;
}

/**
 * The alerts a launch sends meta when it pauses or fails a team (src/apps/launch/judge/launch-outcome.ts): the
 * team's paused or failed item tells that already, so they are not escalations of their own.
 */
function isLaunchStateAlert(message: SignalMessage): boolean {
  return message.from !== META && /^team \S+ (paused|failed)\b/.test(message.subject);
}

/**
 * The item a signal is, once sent: a question to meta, or an escalation (an alert to meta: the monitor's
 * about an overdue signal, or one a team raised); undefined for anything else.
 */
export function signalNeedsYou(message: SignalMessage): NeedsYouItem | undefined {
  if (message.to !== META) return undefined;
  const team = message.from === META ? null : message.from;
  if (message.type === 'question')
    return {
      id: `question:${message.id}`,
      kind: 'question',
      team,
      since: message.timestamp,
      summary: oneLine(`${message.from} asks: ${message.subject}`),
      action: `read it: fed signal show ${message.id}; answer: fed signal send --to ${message.from} --type report --reply-to ${message.id} --subject "<answer>"`,
      signalId: message.id,
      resumeAt: null,
    };
  if (message.type === 'alert' && !isLaunchStateAlert(message))
    return {
      id: `escalation:${message.id}`,
      kind: 'escalation',
      team,
      since: message.timestamp,
      summary: oneLine(message.from === META ? message.subject : `${message.from}: ${message.subject}`),
      action: `read it: fed signal show ${message.id}; then acknowledge it: fed signal ack ${message.id}`,
      signalId: message.id,
      resumeAt: null,
    };
  return undefined;
}

/** The only types of signal that are items (signalNeedsYou): a box's others are never read for the queue. */
const ITEM_TYPES = ['question', 'alert'] as const;

/**
 * Meta's open questions and escalations: questions nobody answered and meta did not acknowledge, alerts
 * meta did not acknowledge. `inbox`: meta's inbox, kept by a caller that reads it again.
 */
export async function metaNeedsYou(fed: Federation, inbox?: SignalInbox): Promise<NeedsYouItem[]> {
  return (await metaOpenSignals(fed, inbox)).map(({ item }) => item);
}

/**
 * metaNeedsYou's items with the signal each is (who asked what, to answer in place). The inbox is read a
 * batch at a time and only its questions and alerts kept: meta's inbox holds every report of the fleet,
 * which a long-running reader (the dashboard) must neither parse again and again nor hold.
 */
export async function metaOpenSignals(
  fed: Federation,
  inbox?: SignalInbox,
): Promise<Array<{ item: NeedsYouItem; message: SignalMessage }>> {
  const box = inbox ?? fed.backend.signals.inbox({ id: META, entry: undefined });
  const open: Array<{ item: NeedsYouItem; message: SignalMessage }> = [];
  for await (const { signals } of box.pendingBatches({ types: ITEM_TYPES }))
    for (const { message } of signals) {
      const item = signalNeedsYou(message);
      if (item) open.push({ item, message });
    }
  const questions = open.filter(({ item }) => item.kind === 'question').map(({ item }) => item.signalId!);
  if (questions.length === 0) return open;
  const answered = await fed.backend.delivery.recorded(questions, ['answered']);
  return open.filter(({ item }) => item.kind !== 'question' || !answered.has(item.signalId!.toLowerCase()));
}
