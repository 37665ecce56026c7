import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opencodeRateLimitWait } from '../../../src/apps/launch/presets/opencode-log.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Lines as OpenCode 1.18.33 writes them (test/real-cli/opencode.test.ts has the real one write them). */
const line = (at: string, session: string, small: boolean, error: string) =>
  `timestamp=${at} level=ERROR run=06c78662 message="stream error" providerID=anthropic modelID=m session.id=${session} small=${small} agent=${small ? 'title' : 'build'} mode=primary error.error="${error}"`;
const LIMIT = 'AI_APICallError: Number of requests has exceeded your rate limit';

function home(...lines: string[]): NodeJS.ProcessEnv {
  const dir = tempDir();
  mkdirSync(join(dir, '.local', 'share', 'opencode', 'log'), { recursive: true });
  writeFileSync(join(dir, '.local', 'share', 'opencode', 'log', 'opencode.log'), `${lines.join('\n')}\n`);
  return { HOME: dir };
}

describe("OpenCode's log: a rate limit it waits out in silence", () => {
  const since = new Date('2026-11-25T04:56:00Z');

  it("the main agent's rate-limited stream error since the last output is the wait", () => {
    const env = home(line('2026-11-25T04:56:48.421Z', 'ses_a', false, LIMIT));
    expect(opencodeRateLimitWait(env, since, 'ses_a')).toEqual({
      outcome: 'rate-limited',
      message: `OpenCode waits out a rate limit in silence: ${LIMIT}`,
    });
    // A session not known yet (silent from its start): any of the account's.
    expect(opencodeRateLimitWait(env, since, null)?.outcome).toBe('rate-limited');
  });

  it.each([
    ['the title agent’s', line('2026-11-25T04:56:48Z', 'ses_a', true, LIMIT)],
    ['another session’s', line('2026-11-25T04:56:48Z', 'ses_b', false, LIMIT)],
    ['one before the last output', line('2026-11-25T04:55:59Z', 'ses_a', false, LIMIT)],
    ['another error', line('2026-11-25T04:56:48Z', 'ses_a', false, 'AI_APICallError: socket hang up')],
  ])('not %s', (_, logged) => {
    expect(opencodeRateLimitWait(home(logged), since, 'ses_a')).toBeUndefined();
  });

  it('no log at all says nothing; XDG_DATA_HOME moves it', () => {
    expect(opencodeRateLimitWait({ HOME: tempDir() }, since, null)).toBeUndefined();
    const env = home(line('2026-11-25T04:56:48Z', 'ses_a', false, LIMIT));
    expect(opencodeRateLimitWait({ XDG_DATA_HOME: join(env.HOME!, '.local', 'share') }, since, null)).toBeDefined();
  });
});
