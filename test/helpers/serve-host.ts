import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runFed } from './fed-cli.js';
import { tempDir } from './temp-dir.js';

/**
 * A machine serving a JetStream federation: its own git checkout and working directory — a clone of
 * `codebase` (a shared remote) when given, else a repository of its own — joined to `federation` on the
 * shared server, serving as host `name` with the given agent (unsandboxed: the tests read the agents'
 * pids) and `serve` settings.
 */
export async function serveHost(
  env: NodeJS.ProcessEnv,
  federation: string,
  name: string,
  agent: string,
  serve: object,
  { codebase }: { codebase?: string } = {},
): Promise<string> {
  const dir = tempDir(`fed-host-${name}-`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  if (codebase) git('clone', '-q', codebase, '.');
  else git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  if (!codebase) {
    writeFileSync(join(dir, 'README.md'), '# project\n');
    git('add', '-A');
    git('commit', '-qm', 'project');
  }
  const init = await runFed(['--root', dir, 'init', '--name', federation], { env });
  expect(init.code, init.stderr).toBe(0);
  const file = join(dir, 'federate.config.json');
  const written = JSON.parse(readFileSync(file, 'utf8')) as { agent?: object };
  writeFileSync(
    file,
    JSON.stringify({
      ...written,
      agentCommand: agent,
      agent: { ...written.agent, sandbox: false },
      serve: { hostName: name, ...serve },
    }),
  );
  return dir;
}

/** `fed --root <root> …` with `env`, expected to succeed; its stdout. */
export const fedOn = (env: NodeJS.ProcessEnv) => async (root: string, args: string[]) => {
  const result = await runFed(['--root', root, ...args], { env, timeoutMs: 60_000 });
  expect(result.code, `fed ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

/** `fed signal send` from `root`: a directive giving `team` a mission (subject `subject`) to write its deliverable. */
export async function sendMission(
  fed: ReturnType<typeof fedOn>,
  root: string,
  team: string,
  subject = `Document ${team}`,
): Promise<void> {
  await fed(root, [
    'signal',
    'send',
    '--to',
    team,
    '--type',
    'directive',
    '--subject',
    subject,
    '--body',
    'Write deliverable.md',
  ]);
}

/** A team's lifecycle journal, checked complete with every transition applied exactly once across the hosts. */
export async function expectEachStepOnce(fed: ReturnType<typeof fedOn>, root: string, team: string): Promise<void> {
  const show = JSON.parse(await fed(root, ['team', 'show', team, '--json'])) as {
    lifecycle: { state: string; recent: { from: string; to: string; event: string }[] };
  };
  expect(show.lifecycle.state).toBe('complete');
  const steps = show.lifecycle.recent.map((line) => `${line.from}→${line.to}:${line.event}`);
  expect(steps.length).toBeGreaterThan(3);
  expect(new Set(steps).size, steps.join('\n')).toBe(steps.length);
}
