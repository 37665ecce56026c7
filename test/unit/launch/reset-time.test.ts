import { describe, expect, it } from 'vitest';
import { rateLimitBackoffMs, resetTimeFromText } from '../../../src/apps/launch/judge/reset-time.js';

const now = new Date('2026-11-23T14:10:00Z');
const at = (text: string) => resetTimeFromText(text, now)?.toISOString();

describe('resetTimeFromText', () => {
  it.each([
    ['Rate limit reached. Please try again in 5 minutes.', '2026-11-23T14:15:00.000Z'],
    ['429 Too Many Requests: retry after 120 seconds', '2026-11-23T14:12:00.000Z'],
    ['usage limit reached, try again in 2 hours', '2026-11-23T16:10:00.000Z'],
    ['quota exhausted; resets in 1.5h', '2026-11-23T15:40:00.000Z'],
    ['processed in 30s', undefined],
    ['Please retry in 30s', '2026-11-23T14:10:30.000Z'],
    ['HTTP 429\nRetry-After: 90', '2026-11-23T14:11:30.000Z'],
  ])('a relative time: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it.each([
    ['limit reached; it resets at 2026-11-23T18:00:00Z', '2026-11-23T18:00:00.000Z'],
    ['available again after 2026-11-24T01:30:00+02:00', '2026-11-23T23:30:00.000Z'],
  ])('an ISO date-time: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it.each([
    ['rate limited until reset at 15:00 UTC', '2026-11-23T15:01:05.000Z'],
    ["You've hit your limit · resets 3pm (UTC)", '2026-11-23T15:01:05.000Z'],
    ["You've hit your limit · resets 4pm (Europe/Paris)", '2026-11-23T15:01:05.000Z'],
    ['Usage limit reached, resets at 9:30 am (America/New_York)', '2026-11-23T14:31:05.000Z'],
    ['resets at 12am UTC', '2026-11-24T00:01:05.000Z'],
    ['try again tomorrow at 2:05 PM UTC', '2026-11-24T14:06:05.000Z'],
  ])(
    'a time of day, its occurrence nearest to now in the zone it names, to the end of its minute: %j',
    (text, expected) => {
      expect(at(text)).toBe(expected);
    },
  );

  it.each([
    'try again at 14:05 UTC',
    "You've hit your limit · resets 3pm (Europe/Paris)",
    'Usage limit reached, resets at 9:05 am (America/New_York)',
    'resets at 12pm UTC',
  ])('a time of day already past is a reset that came, never the same time tomorrow: %j', (text) => {
    expect(at(text)).toBeUndefined();
  });

  it('Codex names the minute, rounded down: a reset 50 s away is waited for to that minute’s end, not a day', () => {
    // A limit hit at 01:21:10 that lifts at 01:22:00; Codex prints "1:21 AM".
    const hit = new Date('2026-11-23T01:21:10Z');
    const text = "You've hit your usage limit. Try again at 1:21 AM UTC.";
    expect(resetTimeFromText(text, hit)?.toISOString()).toBe('2026-11-23T01:22:05.000Z');
    // Resumed a second before the real reset, the limit is met again and the same minute printed.
    expect(resetTimeFromText(text, new Date('2026-11-23T01:21:59Z'))?.toISOString()).toBe('2026-11-23T01:22:05.000Z');
    // Read again once it is past: nothing left to wait for, not tomorrow.
    expect(resetTimeFromText(text, new Date('2026-11-23T01:22:06Z'))).toBeUndefined();
  });

  it.each([
    ["You've hit your usage limit. Try again at Nov 27th, 2026 3:00 PM UTC.", '2026-11-27T15:01:05.000Z'],
    ['Weekly limit reached · resets Nov 30, 9am (UTC)', '2026-11-30T09:01:05.000Z'],
    ['Weekly limit reached · resets Jan 2, 9am (UTC)', '2027-01-02T09:01:05.000Z'],
  ])('a date and a time of day: %j', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it('a time of day without a zone is this machine’s clock', () => {
    const found = resetTimeFromText('resets 11pm', now)!;
    expect(found.getTime()).toBeGreaterThan(now.getTime());
    expect(found.getTime() - now.getTime()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(found.getHours()).toBe(23);
    expect(found.getMinutes()).toBe(1);
  });

  it.each([
    'API Error: 429 rate_limit_error: Number of requests has exceeded your rate limit',
    'quota exceeded in 5 regions',
    'failed at 3 files',
    'resets at 25:00 UTC',
    'resets at 13pm',
    '',
  ])('no reset time in %j', (text) => {
    expect(at(text)).toBeUndefined();
  });
});

describe('rateLimitBackoffMs', () => {
  it('doubles from a minute for each rate-limited run in a row, up to an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => rateLimitBackoffMs(n) / 60_000)).toEqual([
      1, 2, 4, 8, 16, 32, 60, 60, 60,
    ]);
    expect(rateLimitBackoffMs(0)).toBe(60_000);
  });
});
