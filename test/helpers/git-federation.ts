import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyLifecycleInputs,
  initFederation,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  type Federation,
} from 'fed';
import { writeTree } from './fixture-repo.js';
import { tempDir } from './temp-dir.js';

/** A federation at the root of a git repository with one commit: where worktree teams can be onboarded. */
export function gitFederation(): { root: string; git: (...args: string[]) => string } {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe', encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeFileSync(join(root, 'README.md'), '# repo\n');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  git('add', '-A');
  git('commit', '-qm', 'repo');
  return { root, git };
}

/**
 * Coding teams (default: `app`) on worktrees of a gitFederation, each with one commit of its own made there
 * (`<domain>.txt`), directed, and driven to review (`pr-review`): what `fed team review` decides on and, once
 * approved, `fed team merge` merges. `locations`: each team's worktree.
 */
export async function codingTeamsInReview(domains: readonly string[] = ['app']): Promise<{
  root: string;
  git: (...args: string[]) => string;
  fed: Federation;
  locations: Record<string, string>;
}> {
  const { root, git } = gitFederation();
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const locations: Record<string, string> = {};
  for (const domain of domains) {
    await onboardTeam(fed, { domain, archetypeId: 'coding', placementType: 'worktree' });
    const { location } = await fed.team(domain);
    locations[domain] = location;
    writeFileSync(join(location, `${domain}.txt`), 'new\n');
    execFileSync('git', ['add', `${domain}.txt`], { cwd: location });
    execFileSync('git', ['commit', '-qm', `a feature of ${domain}`], { cwd: location });
    await sendSignal(fed, { to: domain, type: 'directive', subject: 'build it' }, { durable: false });
  }
  await runActors(fed, { once: true });
  for (const domain of domains) {
    const events: Array<[string, Record<string, unknown>]> = [
      ['PLAN_READY', { tasks: ['x'] }],
      ['CHANGES_COMMITTED', { commit: 'abc' }],
      ['TESTS_COMPLETE', { passed: 1, failed: 0 }],
      ['REVIEW_REQUESTED', { pullRequest: `fed/${domain}` }],
    ];
    for (const [type, data] of events)
      await applyLifecycleInputs(fed, await fed.team(domain), [{ source: 'event', event: { type, ...data } }], {
        durable: false,
      });
  }
  return { root, git, fed, locations };
}

/** The greeter project's check: the coding team's tests (test/fixtures/agents/coding-run.mjs makes them pass). */
const GREETER_CHECK = `import { greet } from './greet.mjs';
const failures = [greet('fed') === 'Hello, fed!', greet('') === 'Hello, !'].filter((ok) => !ok).length;
console.log(\`\${failures} failed\`);
process.exit(failures ? 1 : 0);
`;

/**
 * A git repository of the greeter project in `root`, with fed initialised and committed, the coding team
 * `app` onboarded on a worktree and directed to add greet(): where coding-run.mjs is launched. `fed` runs a
 * command of the built CLI in `root` and fails the test unless it succeeds.
 */
export async function greeterCodingTeam(
  root: string,
  fed: (...args: string[]) => Promise<unknown>,
): Promise<(...args: string[]) => string> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeTree(root, { 'README.md': '# greeter\n', 'check.mjs': GREETER_CHECK });
  await fed('init');
  // A real project commits fed's config and .fed/.gitignore, so team worktrees ignore their own .fed/.
  git('add', '-A');
  git('commit', '-qm', 'greeter');
  await fed('team', 'onboard', 'app', '--archetype', 'coding', '--placement', 'worktree');
  await fed(
    'signal',
    'send',
    '--to',
    'app',
    '--type',
    'directive',
    '--subject',
    'Add greet()',
    '--body',
    'check.mjs must pass',
  );
  return git;
}

/** `git` run in `dir`, its output trimmed; fails the test with git's words. */
export const gitIn =
  (dir: string) =>
  (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' }).trim();

/**
 * A codebase shared by several machines: a bare repository as its remote, holding `main` with one commit.
 * Each machine's codebase is a clone of it (codebaseClone).
 */
export function codebaseRemote(): string {
  const remote = join(tempDir('fed-remote-'), 'codebase.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const seed = codebaseClone(remote);
  writeFileSync(join(seed.root, 'README.md'), '# codebase\n');
  seed.git('add', '-A');
  seed.git('commit', '-qm', 'codebase');
  seed.git('push', '-q', 'origin', 'HEAD:main');
  return remote;
}

/** One machine's clone of `remote` (its `origin`), with a git identity to commit as. */
export function codebaseClone(remote: string): { root: string; git: (...args: string[]) => string } {
  const root = tempDir('fed-clone-');
  execFileSync('git', ['clone', '-q', remote, root], { stdio: 'pipe' });
  const git = gitIn(root);
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  return { root, git };
}
