import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

async function federationWithTeam(): Promise<{ root: string; fed: (...args: string[]) => ReturnType<typeof runFed> }> {
  const root = tempDir();
  const fed = (...args: string[]) => runFed(['--root', root, ...args]);
  expect((await fed('init')).code).toBe(0);
  expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
  return { root, fed };
}

describe('fed actors run --once with a team whose state is unusable', () => {
  it('names it in the summary and exits 2, never "no team to run" with exit 0; the other teams run', async () => {
    const { root, fed } = await federationWithTeam();
    expect((await fed('team', 'onboard', 'other')).code).toBe(0);
    const stateDir = join(root, '.fed', 'teams', 'docs', '.fed', 'state');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, 'lifecycle.json'), '{ broken');
    const all = await fed('actors', 'run', '--once');
    expect(all.code).toBe(2);
    expect(all.stderr).toMatch(/warning: skipping docs for now: .*lifecycle\.json is corrupt/);
    expect(all.stdout).toBe('done — other: preparing, docs: not run (see the warning above)\n');
  });
});

describe('fed actors run --once while another consumer runs the team', () => {
  it('says the team was skipped because another process runs it, never "no team to run"', async () => {
    const { root, fed } = await federationWithTeam();
    const lease = workspacePaths(join(root, '.fed', 'teams', 'docs')).consumerLease;
    mkdirSync(dirname(lease), { recursive: true });
    const holder = startFixture('hold-lock.mjs', [lease]);
    try {
      let held = '';
      holder.child.stdout?.on('data', (chunk: Buffer) => (held += chunk.toString()));
      await waitFor(() => held.includes('locked'), 15_000, 'the consumer lease of docs');
      const once = await fed('actors', 'run', '--once');
      expect(once.code, once.stderr).toBe(0);
      expect(once.stderr).toContain(
        `warning: skipping docs for now: team "docs" is already being run by another process (pid ${holder.child.pid}`,
      );
      expect(once.stdout).toBe('done — docs: skipped (another process runs it)\n');
    } finally {
      holder.child.kill('SIGKILL');
      await holder.done;
    }
  });
});

describe('fed event / fed actors run / fed team show', () => {
  it('walks a lifecycle from the command line and shows it', async () => {
    const { root, fed } = await federationWithTeam();
    await fed(
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Document the API',
      '--body',
      'docs/api.md please',
    );
    const run = await fed('actors', 'run', '--once');
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('docs: MISSION_ASSIGNED (still preparing)');
    expect(run.stdout).toContain('done — docs: preparing');

    const plan = await fed('event', '--team', 'docs', 'PLAN_READY', '--data', '{"sources":["src"]}');
    expect(plan).toMatchObject({ code: 0, stdout: 'docs: preparing → scanning (PLAN_READY)\n' });

    // Inside the workspace the team is implied.
    const scan = await runFed(['event', 'SCAN_COMPLETE', '--data', '{"filesRead": 3}', '--json'], {
      cwd: join(root, '.fed', 'teams', 'docs'),
    });
    expect(JSON.parse(scan.stdout)).toMatchObject({
      team: 'docs',
      event: 'SCAN_COMPLETE',
      from: 'scanning',
      to: 'distilling',
    });

    const show = await fed('team', 'show', 'docs', '--json');
    const shown = JSON.parse(show.stdout) as { lifecycle: Record<string, unknown> };
    expect(shown.lifecycle).toMatchObject({
      machine: 'deliverable',
      state: 'distilling',
      mission: { subject: 'Document the API' },
      pending: [],
    });
    expect((shown.lifecycle.recent as { event: string }[]).map((l) => l.event)).toEqual([
      'MISSION_ASSIGNED',
      'PLAN_READY',
      'SCAN_COMPLETE',
    ]);
    expect(typeof shown.lifecycle.since).toBe('string');

    const text = await fed('team', 'show', 'docs');
    expect(text.stdout).toMatch(/^state:\s+distilling since /m);
    expect(text.stdout).toContain('scanning → distilling  SCAN_COMPLETE');
  });

  it.each([
    [
      ['event', '--team', 'docs', 'SCAN_COMPLETE', '--data', '{"filesRead":1}'],
      /team "docs" is preparing: SCAN_COMPLETE is not accepted in preparing; it accepts /,
    ],
    [
      ['event', '--team', 'docs', 'PLAN_READY', '--data', '{"sources":["a"]}'],
      /no mission has been applied yet: a mission directive \(fed signal send --to docs --type directive.*fed actors run --team docs --once/,
    ],
    [['event', '--team', 'docs', 'NOPE'], /unknown event "NOPE" for the deliverable lifecycle/],
    [['event', '--team', 'docs', 'FAIL', '--data', '{"reason":'], /--data is not valid JSON \(line 1, column 11/],
    [['event', '--team', 'docs', 'FAIL', '--data', '[1]'], /--data must be a JSON object/],
    [
      ['event', '--team', 'docs', 'FAIL', '--data', '{"reson":"x"}'],
      /invalid FAIL event for team "docs": reason: expected a non-empty string.*; \(root\): unknown key\(s\) "reson"/,
    ],
    [['event', '--team', 'ghost', 'FAIL'], /unknown team "ghost"/],
    [['event', 'FAIL', '--data', '{"reason":"x"}'], /which team\? pass --team <team>/],
  ])('bad input %j exits 2 with a clear message and writes nothing', async (args, message) => {
    const { root, fed } = await federationWithTeam();
    const result = await fed(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(root, '.fed', 'teams', 'docs', '.fed', 'state', 'lifecycle.json'))).toBe(false);
  });

  it('a team cannot report events for another team (from its workspace or with FED_TEAM): exit 2, nothing written', async () => {
    const { root, fed } = await federationWithTeam();
    expect((await fed('team', 'onboard', 'other')).code).toBe(0);
    const args = ['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}'];
    for (const run of [
      () => runFed(args, { cwd: join(root, '.fed', 'teams', 'other') }),
      () => runFed(['--root', root, ...args], { env: { FED_TEAM: 'other' } }),
    ]) {
      const result = await run();
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/runs as team "other".*cannot act as "docs"/);
      expect(existsSync(join(root, '.fed', 'teams', 'docs', '.fed', 'state', 'lifecycle.json'))).toBe(false);
    }
  });

  it('fed team pause/resume moves the lifecycle too', async () => {
    const { fed } = await federationWithTeam();
    expect((await fed('team', 'pause', 'docs')).code).toBe(0);
    expect(JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout)).toMatchObject({
      status: 'paused',
      lifecycle: { state: 'paused', pausedFrom: 'preparing' },
    });
    expect((await fed('team', 'resume', 'docs')).code).toBe(0);
    expect(JSON.parse((await fed('team', 'show', 'docs', '--json')).stdout)).toMatchObject({
      status: 'active',
      lifecycle: { state: 'preparing' },
    });
  });
});
