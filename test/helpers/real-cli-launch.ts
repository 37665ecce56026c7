import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { LaunchResult } from 'fed/testing';
import { FED_BIN } from './fed-cli.js';
import { greeterCodingTeam } from './git-federation.js';
import { federationWithMission } from './launch-federation.js';
import type { ModelStep } from './model-server/script.js';
import { realCli } from './real-clis.js';
import { tempDir } from './temp-dir.js';
import { asUser, handOver, unprivilegedRound, type UnprivilegedUser } from './unprivileged-user.js';

/**
 * What the real-CLI tests (test/real-cli/) share: a federation of one deliverable team with its mission
 * and a home of its own, given to the launcher; the real `fed launch` run with a real CLI as that
 * launcher; and the model's side of a deliverable team's whole work, in each CLI's tool names.
 */

/** Who runs `fed launch`: this process's user (root in a container) and, when that is root, an unprivileged one. */
export function launchers(suite: string): { label: string; user?: UnprivilegedUser }[] {
  const user = unprivilegedRound(`${suite}, as an unprivileged user`);
  return [{ label: `uid ${process.getuid?.()}` }, ...(user ? [{ label: `${user.name} (uid ${user.uid})`, user }] : [])];
}

export interface TestFederation {
  root: string;
  /** The launcher's home, this test's own: where the CLI keeps its settings and sessions, so a relaunch resumes them. */
  home: string;
  launcher: UnprivilegedUser | undefined;
  deliverable: string;
}

/** A federation with team docs and its mission (and `config` merged into federate.config.json), given to `launcher`. */
export async function realCliFederation(
  launcher: UnprivilegedUser | undefined,
  config: Record<string, unknown> = {},
): Promise<TestFederation> {
  const { root } = await federationWithMission();
  if (Object.keys(config).length > 0) {
    const file = join(root, 'federate.config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...config }, null, 2));
  }
  const home = tempDir('fed-cli-home-');
  if (launcher) for (const dir of [root, home]) handOver(dir, launcher);
  return { root, home, launcher, deliverable: join(root, '.fed', 'teams', 'docs', 'deliverable.md') };
}

/**
 * The team's network policy lets its agent reach the scripted model server at `url` (on this machine's
 * loopback, forwarded into the sandbox's own) beside its provider's hosts, as a user lets a local model
 * gateway in; `agent` is merged into federate.config.json's `agent` too. Without the sandbox
 * (`agent.sandbox: false`) no policy is set: the agent has the machine's network, and a policy set there
 * would refuse the launch.
 */
export function allowModelServer(fed: TestFederation, url: string, agent: Record<string, unknown> = {}): void {
  const file = join(fed.root, 'federate.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as { agent?: Record<string, unknown> };
  const merged = { ...config.agent, ...agent };
  const network = { provider: true, allow: [new URL(url).host] };
  writeFileSync(
    file,
    JSON.stringify({ ...config, agent: merged.sandbox === false ? merged : { ...merged, network } }, null, 2),
  );
}

/**
 * `fed launch --team <team> --agent <real cli> --json` in the federation, as its launcher, with the
 * federation's home as HOME and `env` (the model server's address, a key).
 */
export function launchRealCli(
  fed: TestFederation,
  cli: Parameters<typeof realCli>[0],
  env: Record<string, string>,
  team = 'docs',
): Promise<LaunchResult> {
  return launchAgent(fed, realCli(cli), env, team);
}

/** The fake CLI of the preset tests named `cli` (test/fixtures/agents/bin/<cli>). */
export const fakeCli = (cli: string): string =>
  fileURLToPath(new URL(`../fixtures/agents/bin/${cli}`, import.meta.url));

/** `fed launch --team <team> --agent <program> --json` in the federation, as its launcher, with `env`. */
export function launchAgent(
  fed: TestFederation,
  program: string,
  env: Record<string, string>,
  team = 'docs',
): Promise<LaunchResult> {
  return fedAs<LaunchResult>(fed, ['launch', '--team', team, '--agent', program, '--json'], env);
}

/** The built `fed` with `args` (a `--json` command) in the federation, as its launcher, with `env`: its JSON. */
export function fedAs<T>(fed: TestFederation, args: readonly string[], env: Record<string, string>): Promise<T> {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const argv = asUser(fed.launcher, [process.execPath, FED_BIN, ...args], fed.home);
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: fed.root,
    env: { ...inherited, HOME: fed.home, FED_TELEMETRY_ENABLED: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise<T>((resolve, reject) =>
    child.on('close', (code, signal) =>
      out.trim().startsWith('{')
        ? resolve(JSON.parse(out) as T)
        : reject(new Error(`fed ${args[0]} ended ${code ?? signal}: ${err}${out}`)),
    ),
  );
}

export const DELIVERABLE = `# Project overview

This project has a README and nothing else. It is documented here for newcomers.

## Layout

- \`README.md\`: the project's title.

## Next steps

- Read the README.
`;

/** How one CLI names fed's tools, writes a file and runs a shell command, for the model's side of the work. */
export interface CliTools {
  fed(tool: string, input: Record<string, unknown>): ModelStep;
  write(path: string, content: string): ModelStep;
  shell(command: string): ModelStep;
}

/** The whole of a deliverable team's work, as a model would do it through the CLI's tools and fed's: seven turns. */
export function deliverableScript(tools: CliTools, deliverablePath: string): ModelStep[] {
  const event = (type: string, data: Record<string, unknown>) => tools.fed('fed_event', { type, data });
  return [
    tools.fed('fed_whoami', {}),
    event('PLAN_READY', { sources: ['README.md'] }),
    event('SCAN_COMPLETE', { filesRead: 1 }),
    event('INSIGHTS_READY', { insights: ['a README only'] }),
    tools.write(deliverablePath, DELIVERABLE),
    event('DOCUMENT_WRITTEN', { path: deliverablePath, bytes: Buffer.byteLength(DELIVERABLE) }),
    { say: 'The document is written and reported.' },
  ];
}

/**
 * A federation in a git repository of the greeter project (greeterCodingTeam) with its coding team `app`
 * on a worktree and its mission sent, and a home of its own, given to `launcher`: what a real coding run
 * is launched in. `worktree` is the team's checkout.
 */
export async function realCliCodingFederation(
  launcher: UnprivilegedUser | undefined,
): Promise<TestFederation & { worktree: string }> {
  const root = tempDir();
  await greeterCodingTeam(root, async (...args) => {
    execFileSync(process.execPath, [FED_BIN, '--root', root, ...args], {
      cwd: root,
      stdio: 'pipe',
      env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
    });
  });
  const home = tempDir('fed-cli-home-');
  if (launcher) for (const dir of [root, home]) handOver(dir, launcher);
  const worktree = join(root, '.fed', 'worktrees', 'app');
  return { root, home, launcher, deliverable: join(worktree, 'deliverable.md'), worktree };
}

/** The greeter the coding script writes: what check.mjs of greeterCodingTeam expects. */
export const GREETER = 'export const greet = (name) => `Hello, ${name}!`;\n';

/**
 * A coding team's whole work, as a model would do it through the CLI's tools and fed's, in the team's
 * worktree: plan, read the project's test, write the change, run the tests, commit on the branch and
 * report the commit with `fed event` (the commit is the CLI's to know, not the script's), report the
 * tests, ask for review, and stop.
 */
export function codingScript(tools: CliTools, worktree: string): ModelStep[] {
  const event = (type: string, data: Record<string, unknown>) => tools.fed('fed_event', { type, data });
  return [
    tools.fed('fed_whoami', {}),
    event('PLAN_READY', { tasks: ['add greet()', 'make check.mjs pass'] }),
    tools.shell(`cat '${join(worktree, 'check.mjs')}'`),
    tools.write(join(worktree, 'greet.mjs'), GREETER),
    tools.shell(`cd '${worktree}' && node check.mjs`),
    tools.shell(
      `cd '${worktree}' && git add greet.mjs && git commit -qm 'Add greet()' && fed event CHANGES_COMMITTED --data "{\\"commit\\": \\"$(git rev-parse HEAD)\\"}"`,
    ),
    event('TESTS_COMPLETE', { passed: 2, failed: 0 }),
    event('REVIEW_REQUESTED', { pullRequest: 'fed/app' }),
    { say: 'greet() is added, the tests pass, and the change is in review.' },
  ];
}

/**
 * After a coding run asked for review: fed's review shows the change the agent committed in its sandbox
 * (brought into the repository), the approval and the merge take it, and main holds it.
 */
export async function expectReviewedAndMerged(fed: TestFederation): Promise<void> {
  const review = await fedAs<{ commits: string[]; diff: string; branch: string }>(
    fed,
    ['team', 'review', 'app', '--json'],
    {},
  );
  expect(review.branch).toBe('fed/app');
  expect(review.commits).toEqual([expect.stringMatching(/^[0-9a-f]+ Add greet\(\)$/)]);
  expect(review.diff).toContain(`+${GREETER.trimEnd()}`);
  await fedAs(fed, ['team', 'review', 'app', '--approve', '--json'], {});
  // The network policy the test gave the team (allowModelServer) is committed, as a user commits their config.
  const commit = asUser(fed.launcher, ['git', 'commit', '-qm', 'the model server', 'federate.config.json'], fed.home);
  execFileSync(commit[0]!, commit.slice(1), { cwd: fed.root, stdio: 'pipe' });
  await fedAs(fed, ['team', 'merge', 'app', '--json'], {});
  const main = execFileSync('git', ['-c', 'safe.directory=*', 'show', 'main:greet.mjs'], {
    cwd: fed.root,
    encoding: 'utf8',
  });
  expect(main).toBe(GREETER);
}

/** The run's last event, as the CLI wrote it to the transcript. */
export function finalEvent(transcriptPath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(transcriptPath, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
}

type JsonObject = Record<string, unknown>;

/** The JSON events of a transcript (lines that are not one are skipped, as the launcher skips them). */
function eventsOf(transcriptPath: string): JsonObject[] {
  return readFileSync(transcriptPath, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return value && typeof value === 'object' && !Array.isArray(value) ? [value as JsonObject] : [];
      } catch {
        return [];
      }
    });
}

/**
 * How the fake CLI of the preset tests (test/fixtures/agents/fake-cli.mjs) drifted from the real one, for
 * the same work (`fake`'s and `real`'s transcripts): each kind of event the fake writes (`kindOf`: its
 * type, with a subtype where the CLI has them) must be one the real CLI writes too, with every field the
 * fake gives — and, one level down, every field of an object the fake gives (usage, an item). The fake may
 * leave out what fed does not read; it may not say what the real program never does.
 */
export function fakeDrift(fake: string, real: string, kindOf: (event: JsonObject) => string): string[] {
  const realEvents = eventsOf(real);
  const problems: string[] = [];
  for (const event of eventsOf(fake)) {
    const kind = kindOf(event);
    const counterparts = realEvents.filter((candidate) => kindOf(candidate) === kind);
    if (counterparts.length === 0) {
      problems.push(`the real CLI wrote no ${kind} event`);
      continue;
    }
    const missing = (fields: JsonObject, counterpart: JsonObject, at: string): string[] =>
      Object.entries(fields).flatMap(([name, value]) => {
        if (!(name in counterpart)) return [`${at}${name}`];
        const other = counterpart[name];
        return value && typeof value === 'object' && !Array.isArray(value) && other && typeof other === 'object'
          ? Object.keys(value)
              .filter((inner) => !(inner in other))
              .map((inner) => `${at}${name}.${inner}`)
          : [];
      });
    const best = counterparts
      .map((counterpart) => missing(event, counterpart, ''))
      .sort((a, b) => a.length - b.length)[0]!;
    if (best.length > 0) problems.push(`${kind}: the real CLI's has no ${best.join(', ')}`);
  }
  return problems;
}
