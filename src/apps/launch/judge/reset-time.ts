/**
 * When a rate limit lifts, read from the words of an error — for CLIs that say it only in text ("try
 * again in 5 minutes", "resets 3pm (Europe/Paris)", "try again at 11:53 PM", "try again at Nov 27th, 2026
 * 3:00 PM", "retry after 120 seconds", "until 2026-11-23T18:00:00Z") — and the backoff used when nothing
 * says it. Pure: the caller gives `now`.
 */

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * How long after the named minute's end a clock time is taken to lift: a CLI that names the minute
 * (Codex: "try again at 11:53 PM") rounds the reset down — it comes within that minute, and a resume at
 * its start meets the limit again — and the provider's clock may run a little behind this machine's.
 */
export const CLOCK_TIME_MARGIN_MS = 5_000;

/** "in 5 minutes", "after 120 seconds", "in 2h": after a word that speaks of the limit lifting. */
const RELATIVE =
  /\b(?:try(?:ing)?(?: again)?|retry(?:ing)?|again|resets?|reset|wait|available)\s+(?:again\s+)?(?:in|after)\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b/i;
/** An HTTP header quoted in the error: `Retry-After: 120` (seconds). */
const RETRY_AFTER_HEADER = /\bretry-after:\s*(\d+)\b/i;
/** An ISO date-time with its offset: absolute, wherever it appears. */
const ISO = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/;
/** A clock time's tail: "3pm", "3:30 pm", "15:00 UTC", "9 am (America/New_York)". */
const CLOCK = String.raw`(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*(utc|gmt|z)\b)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?`;
/**
 * A time of day: "resets 3pm", "resets at 3:30 pm (America/New_York)", "at 15:00 UTC", "try again
 * tomorrow at 9 AM". It needs a clock (am/pm or minutes) so that "at 3" alone is never taken for one.
 */
const TIME_OF_DAY = new RegExp(
  String.raw`\b(?:(?:resets?|reset|try again|retry|available(?: again)?)\s+(tomorrow\s+)?(?:at\s+)?|(tomorrow\s+)?at\s+)${CLOCK}`,
  'gi',
);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** A date and a clock: "Nov 27th, 2026 3:00 PM" (Codex, for a reset on another day), "Nov 27, 3pm". */
const DATED = new RegExp(
  String.raw`\b(${MONTHS.join('|')})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?${CLOCK}`,
  'i',
);

/** A clock time as an error names it, before it is placed on a date. */
interface ClockTime {
  hour: number;
  minute: number;
  /** The IANA zone it names, or undefined for this machine's. */
  zone: string | undefined;
}

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
  const dated = DATED.exec(text);
  if (dated) {
    const [, month, day, year, ...clockParts] = dated;
    const clock = clockTime(clockParts);
    if (clock) return onDate(clock, MONTHS.indexOf(month!.slice(0, 3).toLowerCase()) + 1, Number(day), year, now);
  }
  for (const match of text.matchAll(TIME_OF_DAY)) {
    const [, tomorrow, tomorrowAt, ...clockParts] = match;
    const clock = clockTime(clockParts);
    if (clock) return nextTimeOfDay(clock, Boolean(tomorrow ?? tomorrowAt), now);
  }
  return undefined;
}

/** The clock of CLOCK's groups, or undefined when it is none (no am/pm nor minutes, or out of range). */
function clockTime([hourText, minuteText, meridiem, utc, zone]: (string | undefined)[]): ClockTime | undefined {
  if (!minuteText && !meridiem) return undefined;
  let hour = Number(hourText);
  const minute = Number(minuteText ?? 0);
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute, zone: utc ? 'UTC' : zone };
}

/**
 * When a clock time with no date lifts: its occurrence nearest to `now` — a time a little past is a
 * reset that has come (undefined: nothing to wait for), never the same time tomorrow, unless the text
 * says "tomorrow" — rounded up to the end of its minute.
 */
function nextTimeOfDay(clock: ClockTime, tomorrow: boolean, now: Date): Date | undefined {
  const timeZone = zoneOrLocal(clock.zone);
  const today = wallClock(now, timeZone);
  const on = (day: number) =>
    liftsAt(zonedTime(today.year, today.month, today.day + day, clock.hour, clock.minute, timeZone));
  if (tomorrow) return on(1);
  const nearest = [-1, 0, 1]
    .map(on)
    .reduce((best, at) =>
      Math.abs(at.getTime() - now.getTime()) < Math.abs(best.getTime() - now.getTime()) ? at : best,
    );
  return nearest.getTime() > now.getTime() ? nearest : undefined;
}

/** When a clock time on a date lifts (the year: the one named, else the next time that date comes). */
function onDate(clock: ClockTime, month: number, day: number, year: string | undefined, now: Date): Date {
  const timeZone = zoneOrLocal(clock.zone);
  const thisYear = wallClock(now, timeZone).year;
  const at = (y: number) => liftsAt(zonedTime(y, month, day, clock.hour, clock.minute, timeZone));
  if (year) return at(Number(year));
  const thisYears = at(thisYear);
  return thisYears.getTime() > now.getTime() - 86_400_000 ? thisYears : at(thisYear + 1);
}

/** A named minute lifts by its end, and the margin. */
function liftsAt(minute: Date): Date {
  return new Date(minute.getTime() + 60_000 + CLOCK_TIME_MARGIN_MS);
}

function zoneOrLocal(zone: string | undefined): string {
  return validZone(zone) ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
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
