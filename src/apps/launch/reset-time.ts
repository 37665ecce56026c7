/**
 * When a rate limit lifts, read from the words of an error — for CLIs that say it only in text ("try
 * again in 5 minutes", "resets 3pm (Europe/Paris)", "retry after 120 seconds", "until
 * 2026-11-23T18:00:00Z") — and the backoff used when nothing says it. Pure: the caller gives `now`.
 */

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** "in 5 minutes", "after 120 seconds", "in 2h": after a word that speaks of the limit lifting. */
const RELATIVE =
  /\b(?:try(?:ing)?(?: again)?|retry(?:ing)?|again|resets?|reset|wait|available)\s+(?:again\s+)?(?:in|after)\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b/i;
/** An HTTP header quoted in the error: `Retry-After: 120` (seconds). */
const RETRY_AFTER_HEADER = /\bretry-after:\s*(\d+)\b/i;
/** An ISO date-time with its offset: absolute, wherever it appears. */
const ISO = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/;
/**
 * A time of day: "resets 3pm", "resets at 3:30 pm (America/New_York)", "at 15:00 UTC". It needs a clock
 * (am/pm or minutes) so that "at 3" alone is never taken for one.
 */
const TIME_OF_DAY =
  /\b(?:(?:resets?|reset|try again|retry|available(?: again)?)\s+(?:at\s+)?|at\s+)(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*(utc|gmt|z)\b)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/gi;

/** The moment a limit resets, as an error's text says it, or undefined when it says none. */
export function resetTimeFromText(text: string, now: Date): Date | undefined {
  const relative = RELATIVE.exec(text);
  if (relative) return new Date(now.getTime() + Number(relative[1]) * UNIT_MS[relative[2]!.toLowerCase()[0]!]!);
  const header = RETRY_AFTER_HEADER.exec(text);
  if (header) return new Date(now.getTime() + Number(header[1]) * 1_000);
  const iso = ISO.exec(text);
  if (iso) {
    const at = Date.parse(iso[1]!);
    if (Number.isFinite(at)) return new Date(at);
  }
  for (const match of text.matchAll(TIME_OF_DAY)) {
    const [, hourText, minuteText, meridiem, utc, zone] = match;
    if (!minuteText && !meridiem) continue;
    const at = nextTimeOfDay(hourText!, minuteText, meridiem, utc ? 'UTC' : zone, now);
    if (at) return at;
  }
  return undefined;
}

/** The next moment after `now` the clock in `zone` (default: this machine's) shows that time. */
function nextTimeOfDay(
  hourText: string,
  minuteText: string | undefined,
  meridiem: string | undefined,
  zone: string | undefined,
  now: Date,
): Date | undefined {
  let hour = Number(hourText);
  const minute = Number(minuteText ?? 0);
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const timeZone = validZone(zone) ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const today = wallClock(now, timeZone);
  for (let day = 0; day <= 1; day++) {
    const at = zonedTime(today.year, today.month, today.day + day, hour, minute, timeZone);
    if (at.getTime() > now.getTime()) return at;
  }
  return undefined;
}

function validZone(zone: string | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** What a clock in `timeZone` shows at `at`. */
function wallClock(at: Date, timeZone: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return {
    year: part('year'),
    month: part('month'),
    day: part('day'),
    hour: part('hour'),
    minute: part('minute'),
    second: part('second'),
  };
}

/** The instant a clock in `timeZone` shows this date and time (days past the month's end roll over). */
function zonedTime(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const wanted = Date.UTC(year, month - 1, day, hour, minute);
  let guess = wanted;
  // Twice: the zone's offset at the first guess may differ from the one at the answer (a DST change).
  for (let i = 0; i < 2; i++) {
    const shown = wallClock(new Date(guess), timeZone);
    const shownAsUtc = Date.UTC(shown.year, shown.month - 1, shown.day, shown.hour, shown.minute, shown.second);
    guess += wanted - shownAsUtc;
  }
  return new Date(guess);
}

/** The first wait of a backoff, and the longest. */
export const BACKOFF_FIRST_MS = 60_000;
export const BACKOFF_MAX_MS = 3_600_000;

/**
 * How long to wait after the `consecutive`-th rate-limited run in a row (1 for the first) when nothing
 * said when the limit lifts: 1, 2, 4, 8 … minutes, at most an hour.
 */
export function rateLimitBackoffMs(consecutive: number): number {
  const doublings = Math.max(0, Math.floor(consecutive) - 1);
  return doublings >= 6 ? BACKOFF_MAX_MS : Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** doublings);
}
