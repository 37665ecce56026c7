/**
 * Teams waiting on one CLI account's rate limit resume in a ramp, not all at the reset second: providers
 * refuse a burst of new sessions right after a limit resets (people report the 5th to 10th session
 * rejected then). The first team starts at the reset; each next one `gap` after the one before. A team
 * of the ramp that meets the limit again widens the gap (it is paused again with the new reset, never
 * failed); one that gets through narrows it back towards the base.
 */
export class AccountRamp {
  private readonly accounts = new Map<string, { gapMs: number; lastStart: number }>();

  constructor(
    private readonly baseGapMs = 15_000,
    private readonly maxGapMs = 5 * 60_000,
  ) {}

  /** The earliest a team resuming from `account`'s limit, which resets at `resetAt` (ms), may start. */
  slot(account: string, resetAt: number): number {
    const ramp = this.accounts.get(account);
    return ramp ? Math.max(resetAt, ramp.lastStart + ramp.gapMs) : resetAt;
  }

  /** A team of `account`'s ramp started at `at` (ms). */
  started(account: string, at: number): void {
    const ramp = this.accounts.get(account);
    this.accounts.set(account, { gapMs: ramp?.gapMs ?? this.baseGapMs, lastStart: at });
  }

  /** How a team of the ramp ended: refused again by the limit, or not. */
  ended(account: string, limitedAgain: boolean): void {
    const ramp = this.accounts.get(account);
    if (!ramp) return;
    ramp.gapMs = limitedAgain
      ? Math.min(this.maxGapMs, ramp.gapMs * 2)
      : Math.max(this.baseGapMs, Math.floor(ramp.gapMs / 2));
  }

  /** The gap between two starts on `account` now (ms). */
  gapOf(account: string): number {
    return this.accounts.get(account)?.gapMs ?? this.baseGapMs;
  }
}
