import type { DeliveryFactStore } from '../../ports/delivery-fact-store.js';
import type { InvalidSignalFile, SignalEntry } from '../../ports/signal-transport.js';
import { signalDigest } from './sent-fact.js';

/**
 * Of signals of `recipient`'s inbox whose id repeats (or was applied already), those that are not the
 * signal fed delivered under that id. The sent fact keeps the delivered signal's time and a digest of its
 * content, so a file dropped by hand that reuses the id with other content, or another time, is an
 * intruder — one that would otherwise be swallowed as a duplicate, or swallow the real signal. A copy
 * identical to the delivered signal is that signal. For an id fed never sent there (another tool's), the
 * first file with it is the signal and a later one with other content is the intruder: one signal is
 * applied per id, and the other would vanish as its duplicate. Callers look only at ids that repeat: the
 * happy path costs no lookup.
 */
export async function idIntruders(
  facts: DeliveryFactStore,
  recipient: string,
  signals: readonly SignalEntry[],
): Promise<InvalidSignalFile[]> {
  const intruders: InvalidSignalFile[] = [];
  for (const id of new Set(signals.map((s) => s.message.id))) {
    const sent = await facts.get(id, 'sent');
    const carriers = signals.filter((s) => s.message.id === id);
    const first = carriers[0]!;
    const delivered =
      sent?.to === recipient
        ? { digest: sent.digest, timestamp: sent.timestamp }
        : { digest: signalDigest(first.message), timestamp: first.message.timestamp };
    for (const { file, path, message } of carriers) {
      if (
        signalDigest(message) === delivered.digest &&
        Date.parse(message.timestamp) === Date.parse(delivered.timestamp)
      )
        continue;
      intruders.push({
        file,
        path,
        reason:
          sent?.to === recipient
            ? `reuses the id ${id} of the ${sent.type} that fed delivered from ${sent.from} (sent ${sent.timestamp}); ` +
              'a new signal needs an id of its own'
            : `reuses the id ${id} of ${first.file}, another signal in this inbox with other content, and would be ` +
              'dropped as its duplicate; a new signal needs an id of its own',
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
