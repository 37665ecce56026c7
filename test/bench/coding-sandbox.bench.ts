/**
 * A coding team in fed's sandbox (issue 80), beside the same work without it, in interleaved rounds:
 * - `fed launch --team app --agent true` of a coding team (its worktree, its git store readied and its
 *   branch brought back, the broker, the network policy's listener), sandboxed vs the same launch with the
 *   team's sandbox off (`agent.teams.app.sandbox: false`): goal ≤ 1.1×. The whole process's wall time, as
 *   a fleet's dispatcher waits for each. The same team launched again and again, as a fleet relaunches its
 *   teams (an agent that does nothing fails its team: `fed team retry` between, not timed). Beside it, in
 *   the same rounds, what no sandbox can do without: the two bwrap processes of a sandboxed run (a network
 *   namespace, then the agent's sandbox in it, with as many mounts as a coding team's) around `true`.
 * - the same for a deliverable team (`--team docs`): goal ≤ 1.1×.
 * - the project's tests, run by the agent inside the sandbox, vs the same tests run outside it: goal
 *   ≤ 1.1×. A generated project of TEST_FILES `node --test` files that read the project's files and spawn
 *   no network; the agent times its own run (so the launch is not in it) and leaves the figure in its
 *   workspace.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { reportInterleavedRatios } from './harness.js';

const ROUNDS = 7;
/** The generated project's test files, and the modules they test. */
const TEST_FILES = 24;
const AGENT = fileURLToPath(new URL('../fixtures/agents/run-project-tests.mjs', import.meta.url));

/** A git repository of a small project with fed initialised and a coding team `app` directed: a fresh one per launch. */
async function codingFederation(parent: string, sandbox: boolean): Promise<string> {
  const root = mkdtempSync(join(parent, 'fed-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@fed');
  git('config', 'user.name', 'fed bench');
  writeProject(root);
  initFederation(root, {}, {});
  if (!sandbox)
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ agent: { teams: { app: { sandbox: false } } } }),
    );
  git('add', '-A');
  git('commit', '-qm', 'project');
  const fed = openFederation(root, { env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' } });
  await onboardTeam(fed, { domain: 'app', archetypeId: 'coding', placementType: 'worktree' }, { durable: false });
  await sendSignal(
    fed,
    { to: 'app', type: 'directive', subject: 'Add a feature', body: 'with tests' },
    { durable: false },
  );
  return root;
}

/** The same project with a deliverable team `docs` directed, its sandbox on or off. */
async function studyFederation(parent: string, sandbox: boolean): Promise<string> {
  const root = await codingFederation(parent, true);
  if (!sandbox)
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ agent: { teams: { docs: { sandbox: false } } } }),
    );
  const fed = openFederation(root, { env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' } });
  await onboardTeam(fed, { domain: 'docs' }, { durable: false });
  await sendSignal(
    fed,
    { to: 'docs', type: 'directive', subject: 'Document it', body: 'all of it' },
    { durable: false },
  );
  return root;
}

/** A project whose `node --test` reads its modules and checks them: what a coding agent runs after each change. */
function writeProject(root: string): void {
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'test'));
  for (let i = 0; i < TEST_FILES; i++) {
    writeFileSync(
      join(root, 'src', `m${i}.mjs`),
      `export const words = (text) => text.split(/\\s+/).filter(Boolean);\nexport const sum${i} = (n) => { let s = 0; for (let k = 0; k < n; k++) s += k % ${i + 3}; return s; };\n`,
    );
    writeFileSync(
      join(root, 'test', `m${i}.test.mjs`),
      `import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { readFileSync, readdirSync } from 'node:fs';\nimport { words, sum${i} } from '../src/m${i}.mjs';\n` +
        `test('m${i}', () => {\n  for (const name of readdirSync(new URL('../src', import.meta.url))) assert.ok(words(readFileSync(new URL('../src/' + name, import.meta.url), 'utf8')).length > 0);\n  assert.ok(sum${i}(200000) > 0);\n});\n`,
    );
  }
  writeFileSync(join(root, 'package.json'), '{ "type": "module", "scripts": { "test": "node --test test/" } }\n');
}

/** `fed launch --team <team> --agent <agent>` in `root`: its wall time (the launch fails the team; that is not timed apart). */
function launch(root: string, agent: string, env: NodeJS.ProcessEnv = {}, team = 'app'): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [FED_BIN, '--root', root, 'launch', '--team', team, '--agent', agent], {
    cwd: root,
    env: { ...process.env, FED_TELEMETRY_ENABLED: 'false', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const elapsed = performance.now() - started;
  // An agent that reports nothing fails its team (exit 1); anything else is the bench's fault.
  if (run.status !== 1) throw new Error(`fed launch in ${root} exited ${run.status}: ${run.stderr.toString()}`);
  return elapsed;
}

/** The project's tests, run outside any sandbox in `worktree`: their wall time. */
function testsOutside(worktree: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--test', 'test/'], { cwd: worktree, stdio: 'ignore' });
  if (run.status !== 0) throw new Error(`the project's tests failed in ${worktree}`);
  return performance.now() - started;
}

export default async function codingSandboxBench(): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'fed-bench-coding-'));
  try {
    const sandboxed = await codingFederation(parent, true);
    const unsandboxed = await codingFederation(parent, false);
    const relaunch = (root: string) => {
      launchAgain(root);
      return launch(root, 'true');
    };
    // A first launch of each, not measured: the code caches of fed and its agents are made.
    launch(sandboxed, 'true');
    launch(unsandboxed, 'true');
    await reportInterleavedRatios(
      { name: "fed launch of a coding team, its sandbox off (agent 'true')", run: () => relaunch(unsandboxed) },
      [
        { name: "fed launch of a coding team in the sandbox (agent 'true')", run: () => relaunch(sandboxed), max: 1.1 },
        {
          name: 'the same launch, its sandbox off, then the bare bwrap pair of a sandboxed run (what no sandbox saves)',
          run: () => relaunch(unsandboxed) + barePair(sandboxed),
        },
      ],
      ROUNDS,
    );

    // A team that studies the codebase: the same launch, sandboxed or not (without the sandbox its codebase
    // is checked before and after the run instead, which is work of its own).
    const study = await studyFederation(parent, true);
    const studyOff = await studyFederation(parent, false);
    const relaunchStudy = (root: string) => {
      launchAgain(root, 'docs');
      return launch(root, 'true', {}, 'docs');
    };
    launch(study, 'true', {}, 'docs');
    launch(studyOff, 'true', {}, 'docs');
    await reportInterleavedRatios(
      { name: "fed launch of a deliverable team, its sandbox off (agent 'true')", run: () => relaunchStudy(studyOff) },
      [
        {
          name: "fed launch of a deliverable team in the sandbox (agent 'true')",
          run: () => relaunchStudy(study),
          max: 1.1,
        },
      ],
      ROUNDS,
    );

    // The project's tests inside the sandbox (the agent times them) and outside it, in the same worktrees.
    const inside = await codingFederation(parent, true);
    const worktree = join(inside, '.fed', 'worktrees', 'app');
    const agent = `'${process.execPath}' '${AGENT}'`;
    const figure = join(worktree, '.fed', 'project-tests-ms');
    testsOutside(worktree);
    await reportInterleavedRatios(
      { name: "the project's tests (node --test), outside the sandbox", run: () => testsOutside(worktree) },
      [
        {
          name: "the project's tests, run by the agent in the sandbox",
          run: () => {
            launchAgain(inside);
            launch(inside, agent);
            return Number(readFileSync(figure, 'utf8'));
          },
          max: 1.1,
        },
      ],
      ROUNDS,
    );
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/**
 * The two bwrap processes a sandboxed run starts, bare: a network namespace, and in it a sandbox with the
 * isolation and as many mounts as a coding team's (its worktree, a deny list, its git folders and store:
 * about forty), around `true`. Its wall time.
 */
function barePair(root: string): number {
  const worktree = join(root, '.fed', 'worktrees', 'app');
  const mounts = Array.from({ length: 20 }, () => ['--ro-bind', worktree, worktree]).flat();
  const started = performance.now();
  const run = spawnSync(
    'bwrap',
    [
      '--unshare-net',
      '--dev-bind',
      '/',
      '/',
      '--',
      'bwrap',
      ...['--unshare-pid', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'],
      ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
      ...mounts,
      '--',
      'true',
    ],
    { stdio: 'ignore' },
  );
  if (run.status !== 0) throw new Error(`the bare bwrap pair exited ${run.status}`);
  return performance.now() - started;
}

/** Make the team launchable again after a run that failed it (its agent only times the tests). */
function launchAgain(root: string, team = 'app'): void {
  spawnSync(process.execPath, [FED_BIN, '--root', root, 'team', 'retry', team], {
    env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
    stdio: 'ignore',
  });
}
