import { DEFAULT_SIGNAL_DEADLINES, type SignalDeadlines } from './schema/config.js';
import { parseDuration } from './schema/duration.js';
import type { SignalType } from './schema/signal.js';

/** Milliseconds each signal type may wait (undefined: no deadline), defaults overlaid by the config. */
export type DeadlineTable = Readonly<Partial<Record<SignalType, number>>>;

export function deadlineTable(configured: SignalDeadlines = {}): DeadlineTable {
  const table: Partial<Record<SignalType, number>> = {};
  for (const [type, text] of Object.entries({ ...DEFAULT_SIGNAL_DEADLINES, ...configured })) {
    const ms = text === undefined || text === 'none' ? undefined : parseDuration(text);
    if (ms !== undefined) table[type as SignalType] = ms;
  }
  return table;
}

/** What meets a signal's deadline: a question needs an answer; any other type an acknowledgment (or an answer). */
export function needsAnswer(type: SignalType): boolean {
  return type === 'question';
}

/** When a signal of `type` sent at `timestamp` is due, if its type has a deadline. */
export function dueAt(type: SignalType, timestamp: string | number, deadlines: DeadlineTable): number | undefined {
  const ms = deadlines[type];
  if (ms === undefined) return undefined;
  return (typeof timestamp === 'number' ? timestamp : Date.parse(timestamp)) + ms;
}

/**
 * The earliest deadline still ahead among the signals a search looked at: a caller that reads again on a
 * clock (the dashboard) need not read before then, as no signal it saw becomes stuck sooner.
 */
export interface NextDue {
  at: number | null;
}

/** Keep `due` in `next` when it is the earliest yet. */
export function noteDue(next: NextDue | undefined, due: number): void {
  if (next && (next.at === null || due < next.at)) next.at = due;
}
