import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { FED_BIN, type FedResult } from '../helpers/fed-cli.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { asUser, handOver, unprivilegedRound, type UnprivilegedUser } from '../helpers/unprivileged-user.js';

/**
 * `agent.home` puts each sandboxed team's writable home at `<agent.home>/<team>`: a configured one that
 * would make the codebase, fed's folders or the system writable is refused before the launch makes
 * anything or applies the team's mission — as root (Docker's default) and as an unprivileged user.
 */

const SANDBOX_SUITE = 'the agent.home tests that launch in the sandbox (need bwrap)';
const user = unprivilegedRound('the agent.home refusals launched by an unprivileged user');
const LAUNCHERS: { label: string; user?: UnprivilegedUser }[] = [
  { label: `uid ${process.getuid?.()}` },
  ...(user ? [{ label: `${user.name} (uid ${user.uid})`, user }] : []),
];

/** A codebase with `src/index.ts` and a federation whose team `team` has its mission waiting in its inbox. */
async function federation(team: string, config: unknown, root = tempDir('fed-agent-home-')): Promise<string> {
  mkdirSync(join(root, 'src'), { recursive: true });
  chmodSync(root, 0o755);
  writeFileSync(join(root, 'src', 'index.ts'), 'export {};\n');
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: team });
  await sendSignal(openFederation(root), { to: team, type: 'directive', subject: 'Survey the codebase' });
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config));
  return root;
}

/** `fed launch --team <team>` with the built CLI, as `launcher`, with a temporary home of its own. */
function launch(
  root: string,
  team: string,
  launcher: { user?: UnprivilegedUser },
  home = tempDir('fed-agent-home-user-'),
): Promise<FedResult> {
  chmodSync(home, 0o755);
  if (launcher.user) {
    handOver(home, launcher.user);
    handOver(root, launcher.user);
  }
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const argv = asUser(
    launcher.user,
    [process.execPath, FED_BIN, 'launch', '--team', team, '--agent', fakeAgent('write-home'), '--root', root],
    home,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: root,
      env: { ...inherited, HOME: home, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A launch that hangs (as one under /proc did) is killed, not waited for.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.each(LAUNCHERS)('agent.home refused before the launch, launched by $label', (launcher) => {
  it.each([
    { home: '.', team: 'src', relation: 'lies inside the federation root' },
    { home: '.fed', team: 'teams', relation: 'lies inside the federation root' },
    { home: '.fed', team: 'signals', relation: 'lies inside the federation root' },
    { home: '..', team: 'shop', relation: 'is the federation root' },
  ])(
    '"$home" with a team named "$team": its home $relation — refused, nothing made, the mission not applied',
    async ({ home, team, relation }) => {
      // The root is `shop/`: a team named shop has its home `<root>/../shop` at the root itself.
      const parent = tempDir('fed-agent-home-parent-');
      chmodSync(parent, 0o755);
      const root = await federation(team, { agent: { home } }, join(parent, 'shop'));
      const before = treeDigest(root);
      const launched = await launch(root, team, launcher);
      expect(launched.code, launched.stderr).toBe(2);
      expect(launched.stderr).toContain(`fed: agent.home (${home}) puts team "${team}"'s agent home`);
      expect(launched.stderr).toContain(`which ${relation} (${root})`);
      expect(launched.stderr).toContain('set agent.home in federate.config.json to a folder of its own');
      // Nothing changed: no home made in the codebase, no lease, the mission still waiting in the inbox.
      expect(treeDigest(root)).toEqual(before);
    },
  );

  it('under /proc (where a recursive mkdir loops forever): refused at once, nothing made', async () => {
    const root = await federation('docs', { agent: { home: '/proc' } });
    const before = treeDigest(root);
    const started = Date.now();
    const launched = await launch(root, 'docs', launcher);
    expect(launched.code, launched.stderr).toBe(2);
    expect(launched.stderr).toContain(
      `fed: agent.home (/proc) puts team "docs"'s agent home, which its agent writes, at /proc/docs, inside /proc, a filesystem of the kernel's`,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(treeDigest(root)).toEqual(before);
  });

  it('a file as agent.home: refused before the mission is applied, nothing made', async () => {
    const outside = tempDir('fed-agent-home-file-');
    chmodSync(outside, 0o755);
    const file = join(outside, 'homes');
    writeFileSync(file, 'not a folder\n');
    const root = await federation('docs', { agent: { home: file } });
    const before = treeDigest(root);
    const launched = await launch(root, 'docs', launcher);
    expect(launched.code, launched.stderr).toBe(2);
    expect(launched.stderr).toContain(
      `fed: agent.home (${file}) puts team "docs"'s agent home, which its agent writes, at ${join(file, 'docs')}, but ${file} is a file, so no folder can be made there; set agent.home in federate.config.json`,
    );
    expect(treeDigest(root)).toEqual(before);
  });

  it("the user's home as agent.home: each team's home lies inside it, and the refusal says so", async () => {
    const home = tempDir('fed-agent-home-user-');
    const root = await federation('docs', { agent: { home } });
    const before = treeDigest(root);
    const launched = await launch(root, 'docs', launcher, home);
    expect(launched.code, launched.stderr).toBe(2);
    expect(launched.stderr).toContain(
      `at ${join(home, 'docs')}, which lies inside the user's home (${home}): the sandbox keeps the user's home read-only`,
    );
    expect(treeDigest(root)).toEqual(before);
  });

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    "a federation inside the user's home launches with the default home, its team's own (needs bwrap)",
    async () => {
      const home = tempDir('fed-agent-home-user-');
      const root = await federation('docs', {}, join(home, 'project'));
      const launched = await launch(root, 'docs', launcher, home);
      expect(launched.code, launched.stderr).toBe(0);
      expect(launched.stdout).toContain('sandboxed');
      expect(readFileSync(join(root, '.fed/teams/docs/.fed/home/index.ts'), 'utf8')).toBe('pwned\n');
      expect(readFileSync(join(root, 'src', 'index.ts'), 'utf8')).toBe('export {};\n');
    },
  );

  it('a link outside the root that leads into it is refused as the root it leads to', async () => {
    const root = await federation('src', {});
    const outside = tempDir('fed-agent-home-link-');
    chmodSync(outside, 0o755);
    const link = join(outside, 'homes');
    symlinkSync(root, link);
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { home: link } }));
    const before = treeDigest(root);
    const launched = await launch(root, 'src', launcher);
    expect(launched.code, launched.stderr).toBe(2);
    expect(launched.stderr).toContain(`at ${join(link, 'src')}, which lies inside the federation root (${root})`);
    expect(treeDigest(root)).toEqual(before);
  });
});
