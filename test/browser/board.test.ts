import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../helpers/browser.js';
import { cliFederation, offOrigin, openDashboard } from './dashboard.js';

/**
 * The board of `fed ui` in Debian's chromium: every team is on it, a change made by the CLI in another
 * process shows without a reload, and the Pause and Resume buttons change the registry and the card.
 */
const SUITE = 'the dashboard in chromium: the board';

const TEAMS = ['alpha', 'beta', 'delta', 'gamma'];

describe.skipIf(skipWithoutChromium(SUITE))(SUITE, () => {
  it('shows every team; a pause by the CLI appears live; Pause then Resume act on the registry and the card', async () => {
    const { root, fed } = await cliFederation(TEAMS);
    const dashboard = await openDashboard(root);
    const { page } = dashboard;
    const cards = page.locator('article.card[data-team]');
    await cards.nth(TEAMS.length - 1).waitFor();
    expect((await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-team')))).sort()).toEqual(TEAMS);

    // Live: the CLI pauses beta in another process; the card shows it without a reload.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const card = (team: string) => page.locator(`article.card[data-team="${team}"]`);
    const status = (team: string) => card(team).locator('dt:text-is("Status") + dd');
    await fed('team', 'pause', 'beta');
    await card('beta').getByRole('button', { name: 'Resume' }).waitFor({ timeout: 10_000 });
    expect(await status('beta').innerText()).toBe('paused');
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // (docs/images/dashboard.png is this screenshot.)
    await dashboard.screenshot('board');

    // The buttons: Pause, then Resume, change the registry (as the CLI reads it) and the card.
    const registryStatus = async (team: string) =>
      (JSON.parse((await fed('team', 'show', team, '--json')).stdout) as { status: string }).status;
    await card('gamma').getByRole('button', { name: 'Pause', exact: true }).click();
    await card('gamma').getByRole('button', { name: 'Resume' }).waitFor({ timeout: 10_000 });
    expect(await registryStatus('gamma')).toBe('paused');
    expect(await status('gamma').innerText()).toBe('paused');
    await card('gamma').getByRole('button', { name: 'Resume' }).click();
    await card('gamma').getByRole('button', { name: 'Pause', exact: true }).waitFor({ timeout: 10_000 });
    expect(await registryStatus('gamma')).toBe('active');
    expect(await status('gamma').innerText()).toBe('active');
    // Each is journaled as the dashboard's.
    const actions = readFileSync(join(root, '.fed', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; action?: string; source?: string; team?: string })
      .filter((record) => record.kind === 'action');
    expect(actions).toEqual([
      expect.objectContaining({ action: 'pause', source: 'ui', team: 'gamma' }),
      expect.objectContaining({ action: 'resume', source: 'ui', team: 'gamma' }),
    ]);

    // The recorder saw the page's own requests (its script and its event stream), and nothing else.
    expect(dashboard.requests).toEqual(
      expect.arrayContaining([`${dashboard.ui.origin}/assets/app.js`, `${dashboard.ui.origin}/events`]),
    );
    expect(offOrigin(dashboard)).toEqual([]);
    expect(dashboard.errors).toEqual([]);
  });
});
