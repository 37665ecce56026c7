import { v5 as uuidv5 } from 'uuid';
import { FedError } from '../../core/errors.js';
import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import { META } from '../../core/schema/common.js';
import { sendSignal } from '../messaging/send-signal.js';
import { recipientGoneReason } from './delivery-inspector.js';
import { findStuckSignals, type StuckSignal } from './stuck-signals.js';
import type { Federation } from '../context.js';

/** Namespace of the ids of alerts about stuck signals (a fixed, random UUID). */
const ALERT_NAMESPACE = '4f1d2a9e-8b7c-4e36-a5d0-93c1e7b2f604';

export interface AlertOptions extends WriteOptions {
  now?: () => Date;
}

/**
 * Tell someone about each stuck signal not told about yet: meta about an overdue one, the sender about
 * one its recipient will never take. Exactly once per signal, over any number of monitor cycles and
 * monitors: the alert's id is derived from the signal's (a concurrent or retried send delivers it once),
 * and the fact recorded after it is sent makes later cycles skip the signal. Updates `stuck` in place
 * with the alerts sent; returns what could not be done.
 */
export async function alertStuckSignals(
  fed: Federation,
  stuck: StuckSignal[],
  options: AlertOptions = {},
): Promise<string[]> {
  const warnings: string[] = [];
  for (const signal of stuck) {
    if (signal.alertedAt !== null) continue;
    try {
      if (signal.state === 'expired') await escalate(fed, signal, options);
      else await reportUndeliverable(fed, signal, options);
    } catch (error) {
      if (!(error instanceof FedError)) throw error;
      warnings.push(`could not send the alert about signal ${signal.id} (${signal.path}): ${error.message}`);
    }
  }
  return warnings;
}

async function escalate(fed: Federation, signal: StuckSignal, options: AlertOptions): Promise<void> {
  const { backend } = fed;
  const alertId = uuidv5(`${signal.id}/expired`, ALERT_NAMESPACE);
  const what = signal.type === 'question' ? 'unanswered' : 'unacknowledged';
  const sent = await sendSignal(
    fed,
    {
      from: META,
      to: META,
      type: 'alert',
      id: alertId,
      subject: `Overdue ${signal.type} to ${signal.to}: ${signal.subject}`,
      body:
        `The ${signal.type} "${signal.subject}" from ${signal.from} to ${signal.to} (signal ${signal.id}, sent ${signal.timestamp}) ` +
        `is ${what} past its deadline (${signal.dueAt}). It is ${signal.path}.\n` +
        `See it with: fed signal show ${signal.id}` +
        (signal.type === 'question'
          ? `\n${signal.to} answers it with: fed signal send --to ${signal.from} --reply-to ${signal.id} …`
          : ''),
    },
    { durable: options.durable, now: options.now },
  );
  const at = (options.now?.() ?? fed.now()).toISOString();
  await backend.delivery.record(
    signal.id,
    'escalated',
    { escalatedAt: at, dueAt: signal.dueAt!, alertId: sent.message.id },
    options,
  );
  Object.assign(signal, { alertId: sent.message.id, alertedAt: at });
}

/** The non-delivery report, back to the sender — unless it cannot receive signals either; then only the fact. */
async function reportUndeliverable(fed: Federation, signal: StuckSignal, options: AlertOptions): Promise<void> {
  const { backend } = fed;
  const at = (options.now?.() ?? fed.now()).toISOString();
  const reason = signal.reason!;
  if (recipientGoneReason(await backend.registry.read(), signal.from) !== undefined) {
    await backend.delivery.record(signal.id, 'undeliverable', { reportedAt: at, reason }, options);
    Object.assign(signal, { alertedAt: at });
    return;
  }
  const sent = await sendSignal(
    fed,
    {
      from: META,
      to: signal.from,
      type: 'alert',
      id: uuidv5(`${signal.id}/undeliverable`, ALERT_NAMESPACE),
      subject: `Undeliverable: ${signal.subject}`,
      body:
        `Your ${signal.type} "${signal.subject}" to ${signal.to} (signal ${signal.id}, sent ${signal.timestamp}) will not be taken: ${reason} ` +
        `and had not acknowledged it. It stays in ${signal.path}. Send it to another team if it still matters.`,
    },
    { durable: options.durable, now: options.now },
  );
  await backend.delivery.record(
    signal.id,
    'undeliverable',
    { reportedAt: at, reason, alertId: sent.message.id },
    options,
  );
  Object.assign(signal, { alertId: sent.message.id, alertedAt: at });
}

/**
 * `fed team archive`: the signals the archived team never took go back to their senders as non-delivery
 * alerts right away, instead of at the next monitor cycle (which would send them otherwise — once either
 * way). Returns the signals and the problems.
 */
export async function reportUndeliverableSignals(
  fed: Federation,
  team: string,
  options: AlertOptions = {},
): Promise<{ signals: StuckSignal[]; warnings: string[] }> {
  const { backend } = fed;
  const now = options.now?.() ?? fed.now();
  const signals = (await findStuckSignals(backend, await backend.registry.read(), {}, now)).filter(
    (s) => s.state === 'undeliverable' && s.to === team,
  );
  const warnings = await alertStuckSignals(fed, signals, options);
  return { signals, warnings };
}
