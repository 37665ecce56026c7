import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, readFederationJournal } from 'fed';
import { federationPaths, type OnboardingIntent, onboardingPaths, readRegistry, toJsonText } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { gitFederation } from '../helpers/git-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/** What a `fed team onboard` killed after writing its intent record leaves: the record, and whatever it had made. */
function interruptedOnboarding(
  root: string,
  domain: string,
  placementType: 'directory' | 'worktree',
): OnboardingIntent {
  const location = join(root, '.fed', placementType === 'directory' ? 'teams' : 'worktrees', domain);
  const intent: OnboardingIntent = {
    domain,
    domainId: domain,
    archetypeId: 'deliverable',
    placementType,
    location,
    ...(placementType === 'worktree' ? { branch: `fed/${domain}` } : {}),
    startedAt: new Date().toISOString(),
  };
  mkdirSync(federationPaths(root).onboarding, { recursive: true });
  writeFileSync(onboardingPaths(root, domain).intent, toJsonText(intent));
  return intent;
}

describe('a retry of a killed onboarding (issue 19 item 3)', () => {
  it('never acts on a record that names another folder or branch (a federation copied with its record): refused, both kept', async () => {
    const original = tempDir();
    initFederation(original, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const theirs = interruptedOnboarding(original, 'docs', 'directory');
    mkdirSync(theirs.location, { recursive: true });
    writeFileSync(join(theirs.location, 'precious.txt'), 'not yours');
    const copy = tempDir();
    initFederation(copy, {}, { FED_TELEMETRY_ENABLED: 'false' });
    mkdirSync(federationPaths(copy).onboarding, { recursive: true });
    writeFileSync(onboardingPaths(copy, 'docs').intent, toJsonText(theirs));

    const retry = await runFed(['--root', copy, 'team', 'onboard', 'docs']);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain(`does not describe an onboarding of team "docs" in this federation`);
    const doctor = await runFed(['--root', copy, 'doctor', '--fix']);
    expect(doctor.stdout).toContain('does not describe an onboarding');
    expect(existsSync(join(theirs.location, 'precious.txt'))).toBe(true);
    expect(existsSync(onboardingPaths(copy, 'docs').intent)).toBe(true);
  });

  it('removes the half-made directory workspace and completes', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const intent = interruptedOnboarding(root, 'docs', 'directory');
    mkdirSync(join(intent.location, '.fed', 'signals', 'inbox'), { recursive: true });
    const retry = await runFed(['--root', root, 'team', 'onboard', 'docs']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(readRegistry(root).teams.map((t) => t.domain)).toEqual(['docs']);
    expect(existsSync(join(intent.location, '.fed', 'team.json'))).toBe(true);
    expect(readdirSync(federationPaths(root).onboarding).filter((n) => n.endsWith('.json'))).toEqual([]);
  });

  it('removes a half-made worktree and its branch (which git branch -D alone cannot) and completes', async () => {
    const { root, git } = gitFederation();
    const intent = interruptedOnboarding(root, 'api', 'worktree');
    git('worktree', 'add', '--quiet', '-b', 'fed/api', intent.location);
    const retry = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(readRegistry(root).teams.map((t) => t.domain)).toEqual(['api']);
    expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
    expect(git('branch', '--list', 'fed/api')).toContain('fed/api');
  });

  it('a branch left without its worktree is removed too', async () => {
    const { root, git } = gitFederation();
    interruptedOnboarding(root, 'api', 'worktree');
    git('branch', 'fed/api');
    const retry = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
    expect(retry.code, retry.stderr).toBe(0);
  });

  it('completes when the killed run had registered the team already: no duplicate, exit 0', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    interruptedOnboarding(root, 'docs', 'directory');
    const retry = await runFed(['--root', root, 'team', 'onboard', 'docs']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(readRegistry(root).teams).toHaveLength(1);
    expect(existsSync(onboardingPaths(root, 'docs').intent)).toBe(false);
    expect((await runFed(['--root', root, 'team', 'onboard', 'docs'])).code).toBe(2);
  });

  it('an onboarding stopped after it registered the team (journalling it) leaves its record: the retry completes, nothing undone', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const fed = openFederation(root);
    // The process dies between the registry commit and the journal line, as a kill there would stop it.
    const append = fed.backend.journal.append.bind(fed.backend.journal);
    fed.backend.journal.append = () => Promise.reject(new Error('killed'));
    await expect(onboardTeam(fed, { domain: 'docs' }, { durable: false })).rejects.toThrow('killed');
    fed.backend.journal.append = append;
    expect(existsSync(onboardingPaths(root, 'docs').intent)).toBe(true);
    expect(existsSync(join(root, '.fed', 'teams', 'docs', '.fed', 'team.json'))).toBe(true);
    const entry = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    expect(readRegistry(root).teams).toEqual([entry]);
    expect(existsSync(onboardingPaths(root, 'docs').intent)).toBe(false);
    expect(existsSync(join(entry.location, '.fed', 'team.json'))).toBe(true);
    // The record the killed run owed is written, at the time the team was onboarded; once.
    const onboarded = async () =>
      (await readFederationJournal(openFederation(root).backend)).filter((r) => r.kind === 'onboarded');
    expect(await onboarded()).toEqual([expect.objectContaining({ team: 'docs', at: entry.onboardedAt })]);
    interruptedOnboarding(root, 'docs', 'directory');
    expect((await runFed(['--root', root, 'doctor', '--fix'])).code).toBe(0);
    expect(existsSync(onboardingPaths(root, 'docs').intent)).toBe(false);
    expect(await onboarded()).toHaveLength(1);
  });

  it('fed doctor --fix finishes an onboarding stopped after it registered the team: its journal record too', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const fed = openFederation(root);
    fed.backend.journal.append = () => Promise.reject(new Error('killed'));
    await expect(onboardTeam(fed, { domain: 'docs' }, { durable: false })).rejects.toThrow('killed');
    expect((await runFed(['--root', root, 'doctor', '--fix'])).code).toBe(0);
    expect(existsSync(onboardingPaths(root, 'docs').intent)).toBe(false);
    const records = await readFederationJournal(openFederation(root).backend);
    expect(records.filter((r) => r.kind === 'onboarded').map((r) => r.team)).toEqual(['docs']);
  });

  it('never touches an onboarding another live process is running', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const intent = interruptedOnboarding(root, 'docs', 'directory');
    mkdirSync(intent.location, { recursive: true });
    const holder = startFixture('hold-lock.mjs', [onboardingPaths(root, 'docs').lock]);
    let out = '';
    holder.child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor(() => out.includes('locked'), 15_000, 'the onboarding lock');
      const retry = await runFed(['--root', root, 'team', 'onboard', 'docs']);
      expect(retry.code).toBe(2);
      expect(retry.stderr).toContain(
        `team "docs" is being onboarded by another process right now (pid ${holder.child.pid}`,
      );
      expect(existsSync(intent.location)).toBe(true);
    } finally {
      holder.child.kill('SIGKILL');
      await holder.done;
    }
  });

  it('a branch fed did not leave is refused with advice that works when it is checked out', async () => {
    const { root, git } = gitFederation();
    const elsewhere = join(tempDir(), 'checkout');
    git('worktree', 'add', '--quiet', '-b', 'fed/api', elsewhere);
    const refused = await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree']);
    expect(refused.code).toBe(2);
    const advice = /delete it \((git worktree remove --force .+ && git branch -D fed\/api)\)/.exec(refused.stderr);
    expect(advice, refused.stderr).not.toBeNull();
    for (const command of advice![1]!.split(' && ')) git(...command.split(' ').slice(1));
    expect((await runFed(['--root', root, 'team', 'onboard', 'api', '--placement', 'worktree'])).code).toBe(0);
  });
});
