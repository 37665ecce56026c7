import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedAnthropic, type ScriptedAnthropic } from '../helpers/model-server/anthropic.js';
import type { ModelStep } from '../helpers/model-server/script.js';
import { launchRealCli, realCliFederation, type TestFederation } from '../helpers/real-cli-launch.js';
import { skipWithoutRealCli } from '../helpers/real-clis.js';

/**
 * The real OpenCode (test/real-clis) driven by the real `fed launch`, against a scripted Anthropic API on
 * a local port (its `anthropic` provider pointed there in the launcher's own config). A provider's long
 * `retry-after` is waited out in silence — nothing on stdout, a line in OpenCode's own log — so fed reads
 * that log once the CLI has been silent a minute, and ends the run as a rate limit instead of letting it
 * hang until a timeout.
 */
const SUITE = 'the real OpenCode driven by fed launch';

let server: ScriptedAnthropic | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The launcher's OpenCode config: the Anthropic provider at the scripted server. */
function opencodeConfig(fed: TestFederation, url: string): void {
  const dir = join(fed.home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'opencode.json'),
    JSON.stringify({
      provider: { anthropic: { options: { baseURL: `${url}/v1`, apiKey: 'sk-ant-test-key' } } },
      model: 'anthropic/claude-sonnet-4-5',
    }),
  );
}

describe.skipIf(skipWithoutRealCli(SUITE, 'opencode'))(SUITE, () => {
  it('a limit that lifts in an hour: the run ends a minute into the silence as rate-limited, the account held', async () => {
    const fed = await realCliFederation(undefined, { agent: { sandbox: false } });
    const limited: ModelStep = {
      fail: {
        status: 429,
        headers: { 'retry-after': '3600' },
        body: {
          type: 'error',
          error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
        },
      },
    };
    server = await scriptedAnthropic({ steps: Array<ModelStep>(20).fill(limited), usage: { input: 1, output: 1 } });
    opencodeConfig(fed, server.url);
    const started = Date.now();
    const result = await launchRealCli(fed, 'opencode', {});
    expect(result.lastRun, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'rate-limited' });
    expect(result.lastRun.reason).toMatch(/^OpenCode waits out a rate limit in silence: .*rate limit/);
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    // Ended a minute into the silence, not at the hour it would have waited.
    const ended = Date.parse(result.lastRun.endedAt);
    expect(ended - started).toBeGreaterThanOrEqual(60_000);
    expect(ended - started).toBeLessThan(180_000);
    // Nothing said when it lifts: beyond the minute OpenCode waited, and the usual backoff.
    expect(Date.parse(result.lastRun.resumeAt!)).toBeGreaterThanOrEqual(ended + 120_000 - 1_000);
    // It was silent on stdout the whole time: its log said it all.
    expect(readFileSync(result.lastRun.transcriptPath, 'utf8').trim()).toBe('');
  }, 240_000);
});
