import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cliFederation, openDashboard } from './dashboard.js';

/**
 * A team's page in Debian's chromium says plainly how its agent ran (issues 48, 49): a run outside the
 * sandbox ran as the user, with the user's home; a team whose network policy is "open" reaches any host;
 * a sandboxed run's network names what its policy refused.
 */
const SUITE = "the dashboard in chromium: a team's page says how its agent was confined";

/** A run of the team's journal, as fed launch records it. */
function recordRun(root: string, team: string, run: { sandboxed: boolean; network?: unknown }): void {
  const journal = workspacePaths(join(root, '.fed', 'teams', team)).runsJournal;
  mkdirSync(dirname(journal), { recursive: true });
  const record = {
    runId: `run-${team}`,
    preset: 'claude',
    command: ['claude'],
    sessionId: null,
    resumedSessionId: null,
    outcome: 'completed',
    reason: null,
    exitCode: 0,
    signal: null,
    turns: 1,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    stateBefore: 'preparing',
    stateAfter: 'complete',
    progressed: true,
    transcriptPath: join(root, 't.jsonl'),
    startedAt: '2026-11-25T10:00:00.000Z',
    endedAt: '2026-11-25T10:01:00.000Z',
    ...run,
  };
  writeFileSync(journal, `${JSON.stringify(record)}\n`);
}

describe.skipIf(skipWithoutChromium(SUITE))(SUITE, () => {
  it('an unsandboxed run, an open network, and what a policy refused', async () => {
    const { root } = await cliFederation(['docs', 'api']);
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...config, agent: { teams: { docs: { network: 'open' } } } }));
    recordRun(root, 'docs', { sandboxed: false });
    recordRun(root, 'api', {
      sandboxed: true,
      network: {
        policy: 'provider: api.anthropic.com',
        hosts: [
          { host: 'api.anthropic.com', port: 443, allowed: true, connections: 2, bytesUp: 10, bytesDown: 20 },
          { host: 'paste.example', port: 443, allowed: false, connections: 1, bytesUp: 0, bytesDown: 0 },
        ],
      },
    });
    const dashboard = await openDashboard(root);
    const { page } = dashboard;

    await dashboard.go('/team/docs');
    await page.locator('tr[data-run="run-docs"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('tr[data-run="run-docs"] .unsandboxed').innerText()).toBe(
      'not sandboxed: ran as you, with your home, credentials and network',
    );
    expect(await page.locator('dt:text-is("Network") + dd').innerText()).toBe('open: its agent can reach any host');

    await dashboard.go('/team/api');
    await page.locator('tr[data-run="run-api"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('tr[data-run="run-api"] .unsandboxed').count()).toBe(0);
    expect(await page.locator('dt:text-is("Network")').count()).toBe(0);
    expect(await page.locator('dt:text-is("Last run\'s network") + dd').innerText()).toBe(
      'network provider: api.anthropic.com — 2 hosts, 1 refused: paste.example:443',
    );
  });
});
