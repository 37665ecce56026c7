import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/fixture-process.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fedIn, offOrigin, openServedDashboard } from './dashboard.js';

/**
 * Steering the fleet from the page under a real `fed serve --ui` (issue 52), in Debian's chromium: a team
 * onboarded with its mission from the page is dispatched by the server and completes; the dispatch panel
 * shows it running and another team's directive waiting for capacity; a schedule added from the page is in
 * federate.config.json and removed again; the plan is a table, applied from the page. Screenshots go to
 * test-artifacts/screenshots/steer-*.png.
 *
 * The agents (complete-when-released.mjs) run unsandboxed and wait for a file the test writes, so what
 * the page shows while they run does not depend on how fast the machine is.
 */
const SUITE = 'the dashboard in chromium: steering under fed serve --ui';

/** A codebase of two areas in git, a federation on it with `docs` onboarded, its agents held until released. */
async function servedFederation() {
  const root = tempDir('fed-browser-steer-');
  writeTree(root, {
    'README.md': '# shop\n',
    'src/api/index.ts': 'export const api = 1;\nexport const more = 2;\n',
    'src/web/index.ts': 'export const web = 1;\n',
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  const fed = fedIn(root);
  await fed('init');
  const file = join(root, 'federate.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as { agent?: object };
  writeFileSync(
    file,
    JSON.stringify({
      ...config,
      agentCommand: fakeAgent('complete-when-released'),
      agent: { ...config.agent, sandbox: false },
    }),
  );
  git('add', '-A');
  git('-c', 'user.email=fed@test', '-c', 'user.name=fed test', 'commit', '-qm', 'shop');
  await fed('team', 'onboard', 'docs');
  return { root, fed, release: join(tempDir('fed-release-'), 'go') };
}

describe.skipIf(skipWithoutChromium(SUITE))(SUITE, () => {
  it('a team onboarded with its mission from the page is dispatched and completes; directives, schedules and the plan steer from the page too', async () => {
    const { root, fed, release } = await servedFederation();
    const dashboard = await openServedDashboard(root, ['--capacity', '1', '--grace', '2s'], {
      AGENT_RELEASE_FILE: release,
    });
    const { page, server } = dashboard;
    await dashboard.go('/steer');
    await page.getByText('0 of 1 running, 0 queued').waitFor();

    // Onboard `site` with the area src/web: its mission is the plan's for that folder.
    const onboard = page.getByRole('form', { name: 'Onboard a team' });
    await onboard.getByLabel('Team', { exact: true }).fill('site');
    await onboard.getByLabel('Area', { exact: true }).fill('src/web');
    await onboard.getByRole('button', { name: 'Onboard and send the mission' }).click();
    await onboard.getByRole('status').filter({ hasText: 'onboarded site' }).waitFor();
    expect(await server.waitForEvent('dispatched', (e) => e.team === 'site')).toMatchObject({
      work: 'mission',
      subject: 'Document src/web/',
    });
    await page.locator('tr[data-dispatch="running"][data-team="site"]').waitFor();

    // A directive to docs while site holds the only slot: docs waits for capacity.
    const directive = page.getByRole('form', { name: 'Send a directive' });
    await directive.locator('select[name="to"]').selectOption('docs');
    await directive.getByLabel('Subject', { exact: true }).fill('Document the shop');
    await directive.getByLabel('Body', { exact: true }).fill('Start with the README.');
    await directive.getByRole('button', { name: 'Send' }).click();
    await directive.getByRole('status').waitFor();
    await page.locator('tr[data-dispatch="capacity"][data-team="docs"]').waitFor();
    await dashboard.screenshot('steer-dispatch');

    // Both teams complete once released: site first, then docs in the slot site left.
    writeFileSync(release, '');
    await server.waitForEvent('ended', (e) => e.team === 'site');
    await server.waitForEvent('ended', (e) => e.team === 'docs');
    const ended = server.events.filter((e) => e.kind === 'ended');
    expect(ended).toEqual([
      expect.objectContaining({ team: 'site', outcome: 'complete', state: 'complete' }),
      expect.objectContaining({ team: 'docs', outcome: 'complete', state: 'complete' }),
    ]);
    const docs = JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout) as {
      lifecycle: { mission: { subject: string } };
    };
    expect(docs.lifecycle.mission.subject).toBe('Document the shop');
    await page.getByText('0 of 1 running, 0 queued').waitFor();

    // A schedule added from the page is in the config, listed, and removed again.
    const schedules = page.getByRole('form', { name: 'Add a schedule' });
    await schedules.locator('select[name="to"]').selectOption('docs');
    await schedules.getByLabel('Subject', { exact: true }).fill('Nightly refresh');
    await schedules.getByLabel('Cron', { exact: true }).fill('0 3 * * *');
    await schedules.getByRole('button', { name: 'Add' }).click();
    const row = page.locator('tr[data-schedule="nightly-refresh"]');
    await row.waitFor();
    const scheduled = () =>
      (JSON.parse(readFileSync(join(root, 'federate.config.json'), 'utf8')) as { schedules?: { id: string }[] })
        .schedules;
    expect(scheduled()).toEqual([expect.objectContaining({ id: 'nightly-refresh', to: 'docs', cron: '0 3 * * *' })]);
    // A bad one is refused in the page, in fed's words, and the config keeps what it had.
    await schedules.getByLabel('Subject', { exact: true }).fill('Twice');
    await schedules.getByLabel('Cron', { exact: true }).fill('0 3 * * *');
    await schedules.getByLabel('Or when this git ref moves').fill('main');
    await schedules.getByRole('button', { name: 'Add' }).click();
    await schedules.getByRole('alert').filter({ hasText: 'exactly one trigger' }).waitFor();
    await dashboard.screenshot('steer-schedules');
    expect(scheduled()).toHaveLength(1);
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect(scheduled()).toBeUndefined();

    // The plan, proposed as a table, then applied: the Federation view shows the applied plan.
    await dashboard.go('/federation');
    const propose = page.getByRole('form', { name: 'Propose a plan' });
    await propose.getByLabel('Teams (at most)').fill('2');
    await propose.getByRole('button', { name: 'Propose' }).click();
    const proposed = page.getByRole('table', { name: 'The proposed plan' });
    await proposed.waitFor();
    expect(
      await proposed.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-team'))),
    ).toEqual(['api-docs', 'web-docs']);
    expect(await proposed.locator('thead th').allInnerTexts()).toEqual(['Team', 'Areas', 'Files', 'Lines', 'Mission']);
    await page.getByRole('button', { name: /^Apply/ }).click();
    await page
      .getByRole('form', { name: 'Apply the plan' })
      .getByRole('status')
      .filter({ hasText: 'api-docs: onboarded, mission sent' })
      .waitFor();
    await page.getByRole('table', { name: 'The applied plan' }).waitFor();
    await dashboard.screenshot('steer-plan');
    const teams = JSON.parse((await fed('team', 'list', '--json')).stdout) as { domainId: string }[];
    expect(teams.map((t) => t.domainId).sort()).toEqual(['api-docs', 'docs', 'site', 'web-docs']);
    const log = (await fed('log')).stdout;
    for (const action of ['onboard', 'directive', 'add-schedule', 'remove-schedule', 'apply-plan'])
      expect(log, action).toContain(`${action} from the dashboard`);

    expect(offOrigin(dashboard)).toEqual([]);
    // The one refusal asked for above is the browser's only complaint.
    expect(dashboard.errors).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    // Stopped once the page's console is read: its event stream reconnecting to a stopped server is an error there.
    server.child.kill('SIGTERM');
    await waitFor(() => server.child.exitCode !== null, 30_000, 'fed serve to stop');
  }, 180_000);
});
