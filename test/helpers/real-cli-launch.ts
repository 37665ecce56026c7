import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LaunchResult } from 'fed/testing';
import { FED_BIN } from './fed-cli.js';
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

/** How one CLI names fed's tools and writes a file, for the model's side of the work. */
export interface CliTools {
  fed(tool: string, input: Record<string, unknown>): ModelStep;
  write(path: string, content: string): ModelStep;
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
