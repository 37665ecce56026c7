import { describe, expect, it } from 'vitest';
import { launchRealCli, realCliFederation } from '../helpers/real-cli-launch.js';
import { skipWithoutRealCli } from '../helpers/real-clis.js';

/**
 * The real Gemini CLI and Copilot CLI (test/real-clis) launched by the real `fed launch` with no login at
 * all — a fresh home, no key in the environment: each checks its login before it starts a session, says
 * nothing on stdout and why on stderr, and exits (gemini 41, copilot 1). fed reads that as `auth`, in the
 * CLI's own words, and pauses the team; the fakes of the preset tests say the same (launch-presets.test.ts).
 */
const SUITE = 'the real Gemini and Copilot CLIs without a login';

/** Every variable either CLI takes a login from, emptied: the test's own environment may hold one. */
const NO_LOGIN = Object.fromEntries(
  [
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GOOGLE_GENAI_USE_VERTEXAI',
    'GOOGLE_GENAI_USE_GCA',
    'COPILOT_GITHUB_TOKEN',
    'GH_TOKEN',
    'GITHUB_TOKEN',
  ].map((name) => [name, '']),
);

describe.skipIf(skipWithoutRealCli(SUITE, 'gemini') || skipWithoutRealCli(SUITE, 'copilot'))(SUITE, () => {
  it.each([
    ['gemini', /^Please set an Auth method in your .*settings\.json .*GEMINI_API_KEY.* \(exit 41\)$/],
    ['copilot', /^Error: No authentication information found\. \(exit 1\)$/],
  ] as const)(
    '%s: auth, in its words; the team paused for its login, not failed',
    async (cli, reason) => {
      const fed = await realCliFederation(undefined, { agent: { sandbox: false } });
      const result = await launchRealCli(fed, cli, NO_LOGIN);
      expect(result.lastRun, JSON.stringify(result.lastRun)).toMatchObject({
        outcome: 'auth',
        reason: expect.stringMatching(reason),
        progressed: false,
      });
      expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    },
    120_000,
  );
});
