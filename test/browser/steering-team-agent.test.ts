import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/fixture-process.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { fakeCli } from '../helpers/real-cli-launch.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fedIn, offOrigin, openServedDashboard } from './dashboard.js';

/**
 * A team onboarded from the Steer page with its own agent and limits (issue 52 item 5), under a real `fed
 * serve --ui` in Debian's chromium: the server launches that team with its agent — the fake claude CLI,
 * which logs its argv — not the federation's, passes it the team's model and turn limit, and the team
 * completes. The screenshot goes to test-artifacts/screenshots/steer-team-agent.png.
 */
const SUITE = "the dashboard in chromium: a team's own agent and limits from the onboarding form";

describe.skipIf(skipWithoutChromium(SUITE))(SUITE, () => {
  it('a team onboarded with its agent and limits from the page is dispatched with that agent and completes', async () => {
    const root = tempDir('fed-browser-team-agent-');
    writeTree(root, { 'README.md': '# shop\n', 'src/web/index.ts': 'export const web = 1;\n' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    const fed = fedIn(root);
    await fed('init');
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { agent?: object };
    // The federation's agent is another one: a launch of the team with it would not reach the fake claude.
    writeFileSync(
      file,
      JSON.stringify({ ...config, agentCommand: fakeAgent('complete'), agent: { ...config.agent, sandbox: false } }),
    );
    git('add', '-A');
    git('-c', 'user.email=fed@test', '-c', 'user.name=fed test', 'commit', '-qm', 'shop');
    const cliLog = join(tempDir('fed-cli-log-'), 'calls.jsonl');

    const dashboard = await openServedDashboard(root, ['--capacity', '1', '--grace', '2s'], { FAKE_CLI_LOG: cliLog });
    const { page, server } = dashboard;
    await dashboard.go('/steer');
    const onboard = page.getByRole('form', { name: 'Onboard a team' });
    await onboard.getByLabel('Team', { exact: true }).fill('site');
    await onboard.getByLabel('Area', { exact: true }).fill('src/web');
    await onboard.locator('select[name="preset"]').selectOption('claude');
    await onboard.getByLabel('Agent command', { exact: true }).fill(fakeCli('claude'));
    await onboard.getByLabel('Model', { exact: true }).fill('opus-for-site');
    await onboard.getByLabel('Max turns', { exact: true }).fill('7');
    await onboard.getByLabel('Max minutes', { exact: true }).fill('20');
    await dashboard.screenshot('steer-team-agent');
    await onboard.getByRole('button', { name: 'Onboard and send the mission' }).click();
    await onboard.getByRole('status').filter({ hasText: 'onboarded site' }).waitFor();

    // The config holds the team's entry; the server launches the team with it and the team completes.
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { agent: { teams: Record<string, unknown> } };
    expect(saved.agent.teams.site).toEqual({
      command: fakeCli('claude'),
      preset: 'claude',
      model: 'opus-for-site',
      limits: { maxTurns: 7, maxMinutes: 20 },
    });
    expect(await server.waitForEvent('dispatched', (e) => e.team === 'site')).toMatchObject({ work: 'mission' });
    expect(await server.waitForEvent('ended', (e) => e.team === 'site')).toMatchObject({
      outcome: 'complete',
      state: 'complete',
    });
    const calls = readFileSync(cliLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { cli: string; args: string[] });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.cli).toBe('claude');
    const after = (flag: string) => calls[0]!.args[calls[0]!.args.indexOf(flag) + 1];
    expect(after('--model')).toBe('opus-for-site');
    expect(after('--max-turns')).toBe('7');

    // fed team show says where each setting comes from.
    const shown = (await fed('team', 'show', 'site')).stdout;
    expect(shown).toMatch(/model: +opus-for-site \(agent\.teams\.site\.model\)/);
    expect(shown).toMatch(/max minutes: +20 \(agent\.teams\.site\.limits\.maxMinutes\)/);
    expect((await fed('log')).stdout).toContain('onboard from the dashboard');

    expect(offOrigin(dashboard)).toEqual([]);
    expect(dashboard.errors).toEqual([]);
    server.child.kill('SIGTERM');
    await waitFor(() => server.child.exitCode !== null, 30_000, 'fed serve to stop');
  }, 120_000);
});
