import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { InvalidSignalFile, SignalEntry } from '../../ports/signal-transport.js';
import { signalDigest } from './sent-fact.js';

/**
 * Of signals of `recipient`'s inbox whose id repeats (or was applied already), those that are not the
 * signal fed delivered under that id. The sent fact keeps the delivered signal's time and a digest of its
 * content, so a file dropped by hand that reuses the id with other content, or another time, is an
 * intruder — one that would otherwise be swallowed as a duplicate, or swallow the real signal. A copy
 * identical to the delivered signal is that signal; an id fed never sent (no sent fact) says nothing.
 * Callers look only at ids that repeat: the happy path costs no lookup.
 */
export async function idIntruders(
  facts: DeliveryFactStore,
  recipient: string,
  signals: readonly SignalEntry[],
): Promise<InvalidSignalFile[]> {
  const intruders: InvalidSignalFile[] = [];
  for (const id of new Set(signals.map((s) => s.message.id))) {
    const sent = await facts.get(id, 'sent');
    if (!sent || sent.to !== recipient) continue;
    for (const { file, path, message } of signals) {
      if (message.id !== id) continue;
      if (signalDigest(message) === sent.digest && Date.parse(message.timestamp) === Date.parse(sent.timestamp))
        continue;
      intruders.push({
        file,
        path,
        reason:
          `reuses the id ${id} of the ${sent.type} that fed delivered from ${sent.from} (sent ${sent.timestamp}); ` +
          'a new signal needs an id of its own',
      });
    }
  }
  return intruders;
}

/** The signals whose id another of them carries too. */
export function repeatedIds(signals: readonly SignalEntry[]): SignalEntry[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { message } of signals) (seen.has(message.id) ? repeated : seen).add(message.id);
  // Ids almost never repeat: then nothing is filtered.
  return repeated.size === 0 ? [] : signals.filter((s) => repeated.has(s.message.id));
}
