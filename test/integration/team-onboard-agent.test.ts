import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { fakeCli } from '../helpers/real-cli-launch.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed team onboard --agent --model --max-*` (issue 52 item 5), with the built CLI: the team's entry lands
 * in federate.config.json beside what the file had, a refused onboarding leaves the file as it was, `fed
 * team show` says where each setting comes from, and `fed launch` runs the team's own agent with them.
 */
async function federation() {
  const root = tempDir('fed-team-agent-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const fed = (...args: string[]) => runFed(['--root', root, ...args]);
  expect((await fed('init')).code).toBe(0);
  const file = join(root, 'federate.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as object;
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        ...config,
        description: 'a shop',
        agentCommand: fakeAgent('complete'),
        agent: { sandbox: false, limits: { maxCostUsd: 4 }, teams: { site: { network: 'open' } } },
      },
      null,
      2,
    )}\n`,
  );
  return { root, fed, file };
}

describe('fed team onboard with its own agent and limits', () => {
  it('writes the team entry once the team is onboarded, and a refusal writes nothing', async () => {
    const { fed, file } = await federation();
    const onboarded = await fed(
      'team',
      'onboard',
      'site',
      '--agent',
      fakeCli('claude'),
      '--model',
      'm1',
      '--max-turns',
      '3',
    );
    expect(onboarded.stderr).toBe('');
    expect(onboarded.code).toBe(0);
    const config = JSON.parse(readFileSync(file, 'utf8')) as {
      description: string;
      agent: { limits: object; teams: Record<string, object> };
    };
    expect(config.description).toBe('a shop');
    expect(config.agent.limits).toEqual({ maxCostUsd: 4 });
    expect(config.agent.teams.site).toEqual({
      network: 'open',
      command: fakeCli('claude'),
      model: 'm1',
      limits: { maxTurns: 3 },
    });

    // A duplicate is refused by the registry: the config keeps the first onboarding's entry, byte for byte.
    const before = readFileSync(file, 'utf8');
    const duplicate = await fed('team', 'onboard', 'site', '--model', 'other');
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('already registered');
    expect(readFileSync(file, 'utf8')).toBe(before);
    // An entry the config refuses onboards nothing, said of the option that gave it.
    const empty = await fed('team', 'onboard', 'blog', '--agent', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('fed: --agent: expected a non-empty string, got an empty string');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect((await fed('team', 'list')).stdout).not.toContain('blog');
    // Without agent or limits, onboarding leaves the config as it is (a worktree team's merge refuses a dirty checkout).
    expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);

    const shown = (await fed('team', 'show', 'site')).stdout;
    expect(shown).toMatch(/preset: +claude \(the program name of agent\.teams\.site\.command\)/);
    expect(shown).toMatch(/max turns: +3 \(agent\.teams\.site\.limits\.maxTurns\)/);
    expect(shown).toMatch(/max cost: +\$4 \(agent\.limits\.maxCostUsd\)/);
  }, 60_000);

  it("fed launch runs the team's own agent with its model and limits", async () => {
    const { fed, root } = await federation();
    expect(
      (await fed('team', 'onboard', 'site', '--agent', fakeCli('claude'), '--model', 'm2', '--max-turns', '9')).code,
    ).toBe(0);
    expect(
      (await fed('signal', 'send', '--to', 'site', '--type', 'directive', '--subject', 'Document the shop')).code,
    ).toBe(0);
    const log = join(tempDir('fed-cli-log-'), 'calls.jsonl');
    const launched = await runFed(['--root', root, 'launch', '--team', 'site', '--json'], {
      env: { FAKE_CLI_LOG: log },
      timeoutMs: 60_000,
    });
    expect(launched.stderr).toBe('');
    expect(JSON.parse(launched.stdout)).toMatchObject({ outcome: 'complete' });
    const [call] = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { cli: string; args: string[] });
    expect(call!.cli).toBe('claude');
    expect(call!.args.slice(call!.args.indexOf('--model'), call!.args.indexOf('--model') + 2)).toEqual([
      '--model',
      'm2',
    ]);
    expect(call!.args.slice(call!.args.indexOf('--max-turns'), call!.args.indexOf('--max-turns') + 2)).toEqual([
      '--max-turns',
      '9',
    ]);
    expect(call!.args).toContain('--max-budget-usd');
  }, 90_000);
});
