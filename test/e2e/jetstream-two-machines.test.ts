import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const SUITE = 'two machines on one host: two working directories that share nothing but the NATS URL';

/** A git repository with a small TypeScript project: what a machine's checkout looks like. */
function checkout(): string {
  const dir = typescriptProject(tempDir('fed-machine-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  git('add', '-A');
  git('commit', '-qm', 'project');
  return dir;
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('meta on one, a team on the other: init joins, onboard places the team there, mission → launch with the built-in agent → report to meta', async () => {
    const env = { FED_NATS_URL: server().url };
    const metaMachine = checkout();
    const teamMachine = checkout();
    const onMeta = (args: string[]) => runFed(['--root', metaMachine, ...args], { env, timeoutMs: 90_000 });
    const onTeam = (args: string[]) => runFed(['--root', teamMachine, ...args], { env, timeoutMs: 90_000 });

    const created = await onMeta(['init', '--name', 'acme']);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(created.stdout).toMatch(
      /created federation "acme" at nats:\/\/127\.0\.0\.1:\d+ KV fed_acme_registry\/registry/,
    );
    expect(created.stderr).toContain('warning: nats-server 2.9');
    expect(existsSync(join(metaMachine, '.fed', 'team-registry.json'))).toBe(false);

    const joined = await onTeam(['init', '--name', 'acme']);
    expect(joined, joined.stderr).toMatchObject({ code: 0 });
    expect(joined.stdout).toContain('joined federation "acme" (0 teams)');

    const onboard = await onTeam(['team', 'onboard', 'docs', '--json']);
    expect(onboard, onboard.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(onboard.stdout)).toMatchObject({
      domainId: 'docs',
      location: join(teamMachine, '.fed', 'teams', 'docs'),
    });
    // Joining again never resets: the team is still there.
    expect((await onTeam(['init', '--name', 'acme'])).stdout).toContain('joined federation "acme" (1 team)');
    const listed = await onMeta(['team', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ domainId: 'docs', location: join(teamMachine, '.fed', 'teams', 'docs') }),
    ]);

    const mission = await onMeta([
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Document the architecture',
      '--body',
      'Write deliverable.md',
    ]);
    expect(mission, mission.stderr).toMatchObject({ code: 0 });

    const launch = await onTeam(['launch', '--team', 'docs']);
    expect(launch, launch.stdout + launch.stderr).toMatchObject({ code: 0 });
    expect(launch.stdout).toContain('aggregating → complete  (DOCUMENT_WRITTEN)');
    expect(existsSync(join(teamMachine, '.fed', 'teams', 'docs', 'deliverable.md'))).toBe(true);

    const reports = await onMeta(['signal', 'list', '--team', 'meta', '--json']);
    expect(reports, reports.stderr).toMatchObject({ code: 0 });
    const { signals } = JSON.parse(reports.stdout) as {
      signals: Array<{ message: { from: string; type: string; subject: string } }>;
    };
    expect(signals.some((s) => s.message.from === 'docs' && s.message.type === 'report')).toBe(true);
    const monitor = await onMeta(['monitor', '--json']);
    expect(monitor, monitor.stderr).toMatchObject({ code: 0 });
    expect(monitor.stdout).toContain('"docs"');
    const inbox = await onMeta(['signal', 'list', '--team', 'docs', '--json']);
    const docsInbox = (
      JSON.parse(inbox.stdout) as { signals: Array<{ message: { subject: string; acknowledged: boolean } }> }
    ).signals;
    expect(docsInbox).toEqual([
      expect.objectContaining({
        message: expect.objectContaining({ subject: 'Document the architecture', acknowledged: true }),
      }),
    ]);
  }, 240_000);
});
