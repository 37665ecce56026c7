import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { SignalInbox } from '../../ports/signal-transport.js';
import { lostHostNeedsYou } from './host-items.js';
import { metaNeedsYou } from './signal-items.js';
import { teamNeedsYou } from './team-items.js';
import type { Federation } from '../../engine/context.js';

/**
 * What waits on a person right now (the "needs you" queue), read through the Federation's ports: coding
 * teams waiting for meta's review or merge, paused and failed teams, questions to meta not answered yet,
 * escalations (alerts to meta), and teams whose host was lost. The notifier tells each once (notify-needs-you.ts); a dashboard lists them.
 */
export interface NeedsYou {
  /** Oldest first. */
  items: NeedsYouItem[];
  /** Teams whose files could not be read: said, never a reason to drop the others. */
  problems: string[];
}

/** Everything waiting on a person, oldest first. */
export async function needsYou(fed: Federation, options: { metaInbox?: SignalInbox } = {}): Promise<NeedsYou> {
  const registry = await fed.backend.registry.read();
  const items: NeedsYouItem[] = [];
  const problems: string[] = [];
  for (const team of registry.teams) {
    try {
      items.push(...(await teamNeedsYou(fed, team)));
    } catch (error) {
      problems.push(`team ${team.domainId}: its files cannot be read: ${(error as Error).message}`);
    }
  }
  items.push(...(await metaNeedsYou(fed, options.metaInbox)));
  try {
    items.push(...(await lostHostNeedsYou(fed)));
  } catch (error) {
    problems.push(`the hosts cannot be read: ${(error as Error).message}`);
  }
  items.sort(byWaitingLongest);
  return { items, problems };
}

/** The queue's order: what has waited longest first (ties by id, so the order is stable). */
export function byWaitingLongest(a: NeedsYouItem, b: NeedsYouItem): number {
  return Date.parse(a.since) - Date.parse(b.since) || a.id.localeCompare(b.id);
}
