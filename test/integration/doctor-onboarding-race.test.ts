import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation, type RegistryEntry } from 'fed';
import {
  federationPaths,
  type OnboardingIntent,
  onboardingPaths,
  readRegistry,
  toJsonText,
  updateRegistryFile,
} from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { gitFederation } from '../helpers/git-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed doctor --fix` takes its findings, then repairs: an onboarding that completes (or starts) in between
 * must find its team intact. The doctor is held between the two at its first git call (a git on PATH that
 * waits for the test), while the test changes the federation under it.
 */
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A git that holds the first call made through it until released (bounded: a minute), then runs the real one. */
function heldGit(): { env: NodeJS.ProcessEnv; started: string; release: () => void } {
  const dir = tempDir('fed-held-git-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const script = join(bin, 'git');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'if mkdir "$HELD_GIT_DIR/first" 2>/dev/null; then',
      '  : > "$HELD_GIT_DIR/started"',
      '  i=0',
      '  while [ ! -e "$HELD_GIT_DIR/release" ] && [ $i -lt 1200 ]; do i=$((i+1)); sleep 0.05; done',
      'fi',
      'exec "$REAL_GIT" "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  return {
    env: { PATH: `${bin}:${process.env.PATH}`, HELD_GIT_DIR: dir, REAL_GIT },
    started: join(dir, 'started'),
    release: () => writeFileSync(join(dir, 'release'), ''),
  };
}

/** `fed doctor --fix` held at its first git call: its findings are taken by then. */
async function heldDoctor(root: string) {
  const git = heldGit();
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const child = spawn(process.execPath, [FED_BIN, '--root', root, 'doctor', '--fix'], {
    env: { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...git.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout })),
  );
  await waitFor(() => existsSync(git.started), 30_000, 'fed doctor to reach its first git call');
  return {
    finish: async () => {
      git.release();
      return done;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

describe('fed doctor --fix beside an onboarding', () => {
  it('an interrupted onboarding a retry completes meanwhile is left alone: its worktree, branch and mission stay', async () => {
    const { root, git } = gitFederation();
    const location = join(root, '.fed', 'worktrees', 'docs');
    const intent: OnboardingIntent = {
      domain: 'docs',
      domainId: 'docs',
      archetypeId: 'deliverable',
      placementType: 'worktree',
      location,
      branch: 'fed/docs',
      startedAt: new Date().toISOString(),
    };
    mkdirSync(federationPaths(root).onboarding, { recursive: true });
    writeFileSync(onboardingPaths(root, 'docs').intent, toJsonText(intent));
    git('worktree', 'add', '--quiet', '-b', 'fed/docs', location);

    const doctor = await heldDoctor(root);
    try {
      const retry = await runFed(['--root', root, 'team', 'onboard', 'docs', '--placement', 'worktree']);
      expect(retry.code, retry.stderr).toBe(0);
      const send = ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'mission'];
      const mission = await runFed(['--root', root, ...send]);
      expect(mission.code, mission.stderr).toBe(0);
      const { code, stdout } = await doctor.finish();
      // It found the interrupted onboarding before the retry completed it: the race was run.
      expect(stdout).toContain('the onboarding of team "docs" was interrupted before it registered the team');
      expect(code).toBe(0);
    } finally {
      doctor.kill();
    }
    expect(readRegistry(root).teams.map((t) => [t.domain, t.location])).toEqual([['docs', location]]);
    expect(existsSync(join(location, '.fed', 'team.json'))).toBe(true);
    expect(git('branch', '--list', 'fed/docs')).toContain('fed/docs');
    const after = await runFed(['--root', root, 'doctor']);
    expect(after.code, after.stdout).toBe(0);
    const inbox = await runFed(['--root', root, 'signal', 'list', '--team', 'docs', '--json']);
    const subjects = JSON.parse(inbox.stdout).signals.map((s: { message: { subject: string } }) => s.message.subject);
    expect(subjects).toEqual(['mission']);
  });

  it('an orphan workspace whose team is registered, or whose onboarding runs, by the time of the repair is left alone', async () => {
    const { root } = gitFederation();
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    // What a killed onboarding of a fed before intent records left: workspaces with fed's marker, no team registered.
    const made = [];
    for (const domain of ['web', 'ops']) made.push(await onboardTeam(fed, { domain }, { durable: false }));
    await updateRegistryFile(root, (registry) => ({ ...registry, teams: [] }));
    const [web, ops] = made as [RegistryEntry, RegistryEntry];

    const doctor = await heldDoctor(root);
    const holder = startFixture('hold-lock.mjs', [onboardingPaths(root, 'ops').lock]);
    try {
      let held = '';
      holder.child.stdout?.on('data', (chunk: Buffer) => (held += chunk.toString()));
      await waitFor(() => held.includes('locked'), 15_000, 'the onboarding lock of ops');
      // What an onboarding of web commits last, after the doctor's findings: its registry entry.
      await updateRegistryFile(root, (registry) => ({ ...registry, teams: [web] }));
      const { code, stdout } = await doctor.finish();
      expect(stdout).toContain(`${web.location} was made by an onboarding of "web" that never registered the team`);
      expect(stdout).toContain(`${ops.location} was made by an onboarding of "ops"`);
      expect(stdout).toContain(
        `could not fix: left alone: team "ops" is being onboarded by another process right now (pid ${holder.child.pid}`,
      );
      expect(code).toBe(1);
    } finally {
      doctor.kill();
      holder.child.kill('SIGKILL');
      await holder.done;
    }
    expect(existsSync(join(web.location, '.fed', 'team.json'))).toBe(true);
    expect(existsSync(join(ops.location, '.fed', 'team.json'))).toBe(true);
  });
});
