import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { launchRunSchema } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { killEach, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed launch (CLI)', () => {
  it('--json prints one result object; exit 0 when complete', async () => {
    const { root } = await federationWithMission();
    const result = await runFed([
      '--root',
      root,
      'launch',
      '--team',
      'docs',
      '--agent',
      fakeAgent('complete'),
      '--json',
    ]);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(
      [
        'agentExitCode',
        'agentSignal',
        'deliverableExists',
        'deliverablePath',
        'durationMs',
        'lastRun',
        'logPath',
        'next',
        'outcome',
        'reason',
        'state',
        'team',
        'warnings',
      ].sort(),
    );
    expect(parsed).toMatchObject({
      team: 'docs',
      state: 'complete',
      outcome: 'complete',
      agentExitCode: 0,
      deliverableExists: true,
      next: null,
    });
    expect(typeof parsed.durationMs).toBe('number');
    // lastRun follows its declared schema, and `fed team show --json` reports the same run.
    const lastRun = launchRunSchema.parse(parsed.lastRun);
    expect(lastRun).toMatchObject({ preset: 'custom', outcome: 'completed', exitCode: 0, stateAfter: 'complete' });
    const shown = await runFed(['--root', root, 'team', 'show', 'docs', '--json']);
    expect((JSON.parse(shown.stdout) as { lastRun: unknown }).lastRun).toEqual(parsed.lastRun);
    const text = await runFed(['--root', root, 'team', 'show', 'docs']);
    expect(text.stdout).toMatch(/last run: +custom completed, .*transcript .*\.fed\/logs\/runs\//);
  });

  it('a relative --agent path is found from the current directory, not from the team workspace', async () => {
    const { root } = await federationWithMission();
    const here = tempDir();
    mkdirSync(join(here, 'agents'));
    const wrapper = join(here, 'agents', 'run-agent.sh');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec ${quote([process.execPath, fileURLToPath(new URL('../fixtures/agents/complete.mjs', import.meta.url))])} "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const result = await runFed(
      ['--root', root, 'launch', '--team', 'docs', '--agent', './agents/run-agent.sh', '--json'],
      { cwd: here },
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'complete' });
  });

  it('text mode shows transitions and the run as they happen; a crash after progress pauses (exit 3), one without fails (exit 1)', async () => {
    const { root } = await federationWithMission();
    const crashed = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('exit-midway')]);
    expect(crashed.code).toBe(3);
    // The mission applied at the launch leaves the lifecycle where it was: said so, not an event alone.
    expect(crashed.stdout).toMatch(
      /^still preparing {2}\(MISSION_ASSIGNED\)\npreparing → scanning {2}\(PLAN_READY\)$/m,
    );
    expect(crashed.stdout).toMatch(/run: custom crashed \(the agent exited with code 1\)/);
    expect(crashed.stdout).toContain(
      'paused (crashed: the agent exited with code 1); resume with: fed team resume docs && fed launch --team docs',
    );

    await runFed(['--root', root, 'team', 'resume', 'docs']);
    const failed = await runFed([
      '--root',
      root,
      'launch',
      '--team',
      'docs',
      '--agent',
      `'${process.execPath}' -e "process.exit(5)"`,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('scanning → failed  (FAIL)');
    expect(failed.stderr).toContain('fed: team docs failed: crashed: the agent exited with code 5 (in state scanning');
  });

  it.each([
    [['launch'], /which team\? pass --team <team>/],
    [['launch', '--team', 'ghost'], /unknown team "ghost"/],
    [
      ['launch', '--team', 'docs', '--timeout', '0'],
      /option '--timeout <seconds>' argument '0' is invalid. expected a number of seconds > 0/,
    ],
    [['launch', '--team', 'docs', '--agent', "broken 'quote"], /--agent has an unclosed ' quote/],
    [
      ['launch', '--team', 'docs', '--preset', 'vim'],
      /option '--preset <name>' argument 'vim' is invalid. expected one of claude, codex, gemini, copilot, opencode, goose, aider, fed-agent, custom/,
    ],
  ])('bad input %j exits 2', async (args, message) => {
    const { root } = await federationWithMission();
    const result = await runFed(['--root', root, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('refuses a paused team (exit 2)', async () => {
    const { root } = await federationWithMission();
    await runFed(['--root', root, 'team', 'pause', 'docs']);
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('team "docs" is paused; resume it first: fed team resume docs');
  });
});

describe('fed launch interrupted at the terminal', () => {
  it('Ctrl-C (SIGINT to the whole process group) pauses the team instead of failing it', async () => {
    const { root } = await federationWithMission();
    const { FED_ROOT: _r, FED_TEAM: _t, ...env } = process.env;
    const child = spawn(
      process.execPath,
      [FED_BIN, '--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('slow-until-stopped')],
      {
        detached: true,
        env: { ...env, FED_TELEMETRY_ENABLED: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('preparing → scanning'), 20_000, 'the agent to start scanning');
    killEach([-child.pid!], 'SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // Paused, to be resumed: exit 3 (fed launch and fed run share the rule).
    expect(code).toBe(3);
    expect(out).toContain(
      'paused (interrupted: stopped by Ctrl-C or SIGTERM); resume with: fed team resume docs && fed launch --team docs',
    );
  });
});
