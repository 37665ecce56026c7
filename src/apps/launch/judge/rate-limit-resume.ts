import type { LaunchRun } from '../../../core/schema/launch-run.js';
import type { Launch } from '../launch.js';
import { accountOf, recordAccountLimit } from '../account-limit.js';
import type { AgentPreset, StreamStats, StreamVerdict } from '../presets/agent-preset.js';
import { rateLimitBackoffMs, resetTimeFromText } from './reset-time.js';
import { readRecentRuns } from '../run-records.js';

/** When a rate-limited team may resume, and what said so. */
export interface ResumeTime {
  at: Date;
  /** `reset`: the CLI reported it (Claude's `resetsAt`); `text`: its error named it; `backoff`: a guess. */
  from: 'reset' | 'text' | 'backoff';
}

/**
 * When a rate-limited run's team may resume: the reset the CLI reported, else a reset time its error
 * text names, else a backoff doubling with each rate-limited run in a row (`recent`: the team's runs
 * before this one), beyond the longest limit the CLI waits out itself (`waitsOutMs`: a limit it gave up
 * on lasts longer). A time that is not ahead of `now` says nothing (a resume at once would only meet the
 * limit again).
 */
export function resumeTimeFor(
  stats: StreamStats,
  verdict: StreamVerdict,
  recent: readonly LaunchRun[],
  now: Date,
  waitsOutMs = 0,
): ResumeTime {
  const ahead = (at: Date | undefined) => (at && at.getTime() > now.getTime() ? at : undefined);
  const reported = ahead(stats.resetsAt ? new Date(stats.resetsAt) : undefined);
  if (reported) return { at: reported, from: 'reset' };
  for (const text of [verdict.message, stats.error?.message, stats.final?.message]) {
    const named = text ? ahead(resetTimeFromText(text, now)) : undefined;
    if (named) return { at: named, from: 'text' };
  }
  let consecutive = 1;
  for (let i = recent.length - 1; i >= 0 && recent[i]!.outcome === 'rate-limited'; i--) consecutive++;
  return { at: new Date(now.getTime() + waitsOutMs + rateLimitBackoffMs(consecutive)), from: 'backoff' };
}

/**
 * The resume time of a team's rate-limited run (ISO), kept for its CLI account too — every team on that
 * account (or API key) pauses until then rather than meeting the same limit, a guessed time included: a
 * limit is the account's, not the team's. The run is recorded whatever happens to the account's file: a
 * file that cannot be written is one of `warnings`.
 */
export function scheduleResume(
  launch: Pick<Launch, 'fed' | 'team' | 'options' | 'warnings'>,
  run: { preset: AgentPreset; runId: string; stats: StreamStats; verdict: StreamVerdict },
): string {
  const { fed, team, warnings } = launch;
  const now = fed.now();
  const time = resumeTimeFor(
    run.stats,
    run.verdict,
    readRecentRuns(team.location),
    now,
    run.preset.waitsOutRateLimitsMs,
  );
  const resumeAt = time.at.toISOString();
  const account = accountOf(launch.options.config, run.preset.name);
  try {
    recordAccountLimit(fed, {
      account,
      resumeAt,
      team: team.domainId,
      runId: run.runId,
      reason: run.verdict.message,
      recordedAt: now.toISOString(),
    });
  } catch (error) {
    warnings.push(
      `the rate limit of account ${account} could not be kept (${(error as Error).message}); its other teams may meet it too`,
    );
  }
  return resumeAt;
}
