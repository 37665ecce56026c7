import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  accountLimitPath,
  accountOf,
  activeAccountLimit,
  emptyStats,
  type LaunchRun,
  loadConfig,
  recordAccountLimit,
} from 'fed/testing';
import { resumeTimeFor } from '../../../src/apps/launch/judge/rate-limit-resume.js';
import { initFederation, openFederation } from 'fed';
import { tempDir } from '../../helpers/temp-dir.js';

const now = new Date('2026-11-23T14:10:00Z');
const limited = { outcome: 'rate-limited', message: 'rate limit reached' } as const;
const runs = (...outcomes: LaunchRun['outcome'][]) => outcomes.map((outcome) => ({ outcome }) as LaunchRun);

describe('resumeTimeFor', () => {
  it('takes the reset the CLI reported first', () => {
    const stats = { ...emptyStats(), resetsAt: '2026-11-23T15:00:00.000Z' };
    expect(resumeTimeFor(stats, { ...limited, message: 'try again in 5 minutes' }, [], now)).toEqual({
      at: new Date('2026-11-23T15:00:00Z'),
      from: 'reset',
    });
  });

  it('else a reset time in the words of the verdict or the stream’s errors', () => {
    expect(resumeTimeFor(emptyStats(), { ...limited, message: 'try again in 5 minutes' }, [], now)).toEqual({
      at: new Date('2026-11-23T14:15:00Z'),
      from: 'text',
    });
    // A clock time lifts by the end of the minute it names.
    const stats = { ...emptyStats(), error: { outcome: 'rate-limited' as const, message: 'resets at 16:00 UTC' } };
    expect(resumeTimeFor(stats, limited, [], now)).toEqual({ at: new Date('2026-11-23T16:01:05Z'), from: 'text' });
  });

  it('a reported reset that is not ahead says nothing', () => {
    const stats = { ...emptyStats(), resetsAt: '2026-11-23T14:00:00.000Z' };
    expect(resumeTimeFor(stats, limited, [], now).from).toBe('backoff');
  });

  it('else backs off by the rate-limited runs in a row before this one', () => {
    const backoff = (recent: LaunchRun[]) =>
      (resumeTimeFor(emptyStats(), limited, recent, now).at.getTime() - now.getTime()) / 60_000;
    expect(backoff([])).toBe(1);
    expect(backoff(runs('rate-limited'))).toBe(2);
    expect(backoff(runs('rate-limited', 'completed', 'rate-limited', 'rate-limited'))).toBe(4);
    expect(backoff(runs(...Array<LaunchRun['outcome']>(12).fill('rate-limited')))).toBe(60);
  });

  it('beyond the longest limit the CLI waits out itself: one it gave up on lasts longer', () => {
    // Claude Code retries a 429 whose retry-after is up to 60 s; it gave up at once on the server's 90 s.
    const waited = resumeTimeFor(emptyStats(), limited, [], now, 60_000);
    expect(waited).toEqual({ at: new Date(now.getTime() + 120_000), from: 'backoff' });
  });
});

describe('the account limit file', () => {
  const federation = () => {
    const root = tempDir();
    initFederation(root, {}, {});
    return openFederation(root);
  };
  const limit = (resumeAt: string, team = 'docs') => ({
    account: 'claude',
    resumeAt,
    team,
    runId: `run-${team}`,
    reason: 'rate limit',
    recordedAt: now.toISOString(),
  });

  it('is the account’s until its reset; the later reset wins', () => {
    const fed = federation();
    recordAccountLimit(fed, limit('2026-11-23T15:00:00.000Z'));
    recordAccountLimit(fed, limit('2026-11-23T14:30:00.000Z', 'api'));
    expect(activeAccountLimit(fed, 'claude', now)).toMatchObject({
      team: 'docs',
      resumeAt: '2026-11-23T15:00:00.000Z',
    });
    recordAccountLimit(fed, limit('2026-11-23T16:00:00.000Z', 'api'));
    expect(activeAccountLimit(fed, 'claude', now)).toMatchObject({ team: 'api' });
    expect(activeAccountLimit(fed, 'codex', now)).toBeUndefined();
    expect(activeAccountLimit(fed, 'claude', new Date('2026-11-23T16:00:00Z'))).toBeUndefined();
  });

  it('a file that cannot be read proves no limit, and says so', () => {
    const fed = federation();
    recordAccountLimit(fed, limit('2026-11-23T15:00:00.000Z'));
    writeFileSync(accountLimitPath(fed.root, 'claude'), '{ torn');
    const warnings: string[] = [];
    expect(activeAccountLimit(fed, 'claude', now, warnings)).toBeUndefined();
    expect(warnings[0]).toMatch(/the rate limit of account claude cannot be read/);
  });

  it('any account name is one file name; the account is agent.account, else the preset', () => {
    expect(accountLimitPath('/f', '../team/x')).toBe('/f/.fed/launch/accounts/..%2Fteam%2Fx.json');
    const config = loadConfig(tempDir(), {}).config;
    expect(accountOf(config, 'claude')).toBe('claude');
    expect(accountOf({ ...config, agent: { ...config.agent, account: 'work' } }, 'claude')).toBe('work');
  });
});
