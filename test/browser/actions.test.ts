import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../helpers/browser.js';
import { greeterCodingTeam } from '../helpers/git-federation.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { cliFederation, fedIn, offOrigin, openDashboard } from './dashboard.js';

/**
 * The dashboard's actions in Debian's chromium, checked with the CLI: a question to meta answered in
 * place becomes answered, and a coding team in review is approved and merged into the real repository.
 * Screenshots of the needs-you queue, a team page with its lifecycle diagram, the signals and the
 * federation views are kept in test-artifacts/screenshots/.
 */
const SUITE = 'the dashboard in chromium: actions';

/** A git repository whose coding team `app` waits in pr-review, as coding-run.test.ts leaves it after one launch. */
async function codingTeamInReview() {
  const root = tempDir('fed-browser-coding-');
  const fed = fedIn(root);
  const git = await greeterCodingTeam(root, fed);
  await fed('launch', '--team', 'app', '--agent', fakeAgent('coding-run'));
  return { root, git, fed };
}

describe.skipIf(skipWithoutChromium(SUITE))(SUITE, () => {
  it('answering a question to meta in place sends a reply-to report that fed signal show calls answered', async () => {
    const { root, fed } = await cliFederation(['docs']);
    const question = JSON.parse(
      (
        await fed(
          'signal',
          'send',
          '--from',
          'docs',
          '--to',
          'meta',
          '--type',
          'question',
          '--subject',
          'Which API do we document?',
          '--body',
          'The **public** one, or the internal one too?',
          '--json',
        )
      ).stdout,
    ) as { id: string };
    const dashboard = await openDashboard(root);
    const { page } = dashboard;
    await dashboard.go('/needs-you');
    const need = page.locator(`li.need[data-kind="question"]`);
    await need.waitFor();
    expect(await need.innerText()).toContain('Which API do we document?');
    await dashboard.screenshot('needs-you');

    await need.getByRole('button', { name: 'Answer' }).click();
    await need.getByRole('textbox', { name: 'Your answer' }).fill('The public one only.');
    await need.getByRole('button', { name: 'Send' }).click();
    await page.locator('li.need[data-kind="question"]').waitFor({ state: 'detached', timeout: 10_000 });

    const shown = await fed('signal', 'show', question.id);
    expect(shown.stdout).toMatch(/^state\s+answered$/m);
    const reply = /answered\s+by signal (\S+) from meta/.exec(shown.stdout)?.[1];
    expect(reply, shown.stdout).toBeDefined();
    const answer = JSON.parse((await fed('signal', 'show', reply!, '--json')).stdout) as {
      message: { to: string; type: string; body: string };
    };
    expect(answer.message).toMatchObject({ to: 'docs', type: 'report', body: 'The public one only.' });

    // The thread, in the signals view.
    await dashboard.go(`/signals?signal=${question.id}`);
    await page.locator(`[data-thread="${question.id}"]`).waitFor();
    await page.locator(`tr[data-signal="${reply}"]`).first().waitFor();
    await dashboard.screenshot('signals');

    expect(offOrigin(dashboard)).toEqual([]);
    expect(dashboard.errors).toEqual([]);
  });

  it('a failed team is archived, then removed, from the page, each after its confirmation', async () => {
    const { root, fed } = await cliFederation(['docs']);
    await fed('event', 'FAIL', '--team', 'docs', '--data', '{"reason":"boom"}');
    const dashboard = await openDashboard(root);
    const { page } = dashboard;
    await dashboard.go('/');
    const card = page.locator('article.card[data-team="docs"]');
    // Remove takes only an archived team: the failed one is offered Archive.
    await card.getByRole('button', { name: 'Archive', exact: true }).click();
    expect(await card.getByRole('button', { name: 'Remove', exact: true }).count()).toBe(0);
    await card.getByRole('button', { name: 'Confirm archive' }).click();
    await card.getByRole('button', { name: 'Remove', exact: true }).click({ timeout: 10_000 });
    expect(JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout)).toMatchObject({ status: 'archived' });
    await card.getByRole('button', { name: 'Confirm remove' }).click();
    await card.waitFor({ state: 'detached', timeout: 10_000 });
    expect((await fed('team', 'list', '--json')).stdout).not.toContain('"docs"');
    expect(dashboard.errors).toEqual([]);
  });

  it('a coding team in review is approved, then merged, from the page', async () => {
    const { root, git, fed } = await codingTeamInReview();
    const dashboard = await openDashboard(root);
    const { page } = dashboard;

    // Its page: the lifecycle diagram with pr-review lit.
    await dashboard.go('/team/app');
    await page.locator('svg[data-machine] g.current[data-state="pr-review"]').waitFor();
    await dashboard.screenshot('team-page');

    await dashboard.go('/');
    const card = page.locator('article.card[data-team="app"]');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.getByRole('button', { name: 'Merge' }).waitFor({ timeout: 10_000 });
    expect(JSON.parse((await fed('team', 'show', 'app', '--json')).stdout)).toMatchObject({
      lifecycle: { state: 'pr-approved' },
    });
    await card.getByRole('button', { name: 'Merge' }).click();
    await page.locator('article.card[data-team="app"][data-state="complete"]').waitFor({ timeout: 20_000 });

    expect(readFileSync(join(root, 'greet.mjs'), 'utf8')).toContain('export const greet');
    expect(git('log', '-1', '--format=%s')).toBe('Merge fed/app (fed team app) into main');
    expect(existsSync(join(root, '.fed', 'worktrees', 'app', 'greet.mjs'))).toBe(false);
    expect(JSON.parse((await fed('team', 'show', 'app', '--json')).stdout)).toMatchObject({
      status: 'archived',
      lifecycle: { state: 'complete' },
    });

    await dashboard.go('/federation');
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    await dashboard.screenshot('federation');

    expect(offOrigin(dashboard)).toEqual([]);
    expect(dashboard.errors).toEqual([]);
  });
});
