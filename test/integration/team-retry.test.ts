import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyLifecycleInputs,
  launchTeam,
  listSignals,
  onboardTeam,
  openFederation,
  readFederationJournal,
  runFederation,
  sendSignal,
  viewLifecycle,
} from 'fed';
import { getTeam, readRegistry, retryTeam, workspacePaths } from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

const team = (root: string) => getTeam(readRegistry(root), 'docs');
const failingAgent = `'${process.execPath}' -e "process.exit(4)"`;
/** The team fails where it is, as `fed event FAIL` does: before any actor applied its inbox. */
const failNow = (root: string) =>
  applyLifecycleInputs(
    openFederation(root),
    team(root),
    [{ source: 'event', event: { type: 'FAIL', reason: 'boom' } }],
    {
      durable: false,
    },
  );

describe('fed team retry (library)', () => {
  it('a failed team starts run 2 from preparing with the same mission, and completes; history is kept', async () => {
    const { root, config } = await federationWithMission();
    expect((await launchTeam(openFederation(root), 'docs', { config, agent: failingAgent, pollMs: 50 })).state).toBe(
      'failed',
    );
    const paths = workspacePaths(team(root).location);
    const failedJournal = readFileSync(paths.journal, 'utf8');

    const run = await retryTeam(openFederation(root), 'docs', config);
    expect(run).toEqual({
      team: 'docs',
      run: 2,
      mission: { subject: 'Document the project', body: 'Write deliverable.md' },
      missionSentSince: false,
      state: 'preparing',
      since: expect.any(String),
      keptAs: ['.fed/history/run-1'],
    });
    expect(readFileSync(join(paths.history, 'run-1', 'journal.jsonl'), 'utf8')).toBe(failedJournal);
    expect(await viewLifecycle(openFederation(root), team(root))).toMatchObject({
      state: 'preparing',
      mission: null,
      failure: null,
    });
    // The mission goes out again from meta; the first directive stays applied once.
    expect((await listSignals(openFederation(root), { team: 'docs' })).signals.map((s) => s.message.subject)).toEqual([
      'Document the project',
      'Document the project',
    ]);

    const second = await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(second).toMatchObject({ state: 'complete', outcome: 'complete' });
    expect((await viewLifecycle(openFederation(root), team(root))).mission?.subject).toBe('Document the project');
    await expect(retryTeam(openFederation(root), 'docs', config)).rejects.toThrow(
      'team "docs" is complete; only a failed team is retried — to give a complete team new work, send it a new mission',
    );

    // A new mission to the complete team: run 3, the run-2 deliverable kept under a numbered name.
    await sendSignal(openFederation(root), {
      to: 'docs',
      type: 'directive',
      subject: 'Document it again',
      body: 'Shorter.',
    });
    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 3,
      mission: { subject: 'Document it again' },
      missionSentSince: true,
      keptAs: ['.fed/history/run-2', 'deliverable.run-2.md'],
    });
    expect(existsSync(join(team(root).location, 'deliverable.run-2.md'))).toBe(true);
    expect(existsSync(join(team(root).location, 'deliverable.md'))).toBe(false);
    const third = await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(third.state).toBe('complete');
    expect((await viewLifecycle(openFederation(root), team(root))).mission?.subject).toBe('Document it again');
  }, 120_000);

  it("fed run's progress of a complete team's new mission starts from the new run's state, not the ended one's", async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Again', body: 'Shorter.' });
    const running: string[] = [];
    const summary = await runFederation(openFederation(root), {
      config,
      agent: fakeAgent('complete'),
      pollMs: 50,
      onUpdate: (run) => {
        if (run.phase === 'running') running.push(run.state);
      },
    });
    expect(summary.teams.map((t) => [t.team, t.outcome])).toEqual([['docs', 'complete']]);
    // Told from its first update on: 'complete' only once the new run has worked its way there again.
    expect(running[0]).toBe('preparing');
    expect(running.indexOf('complete')).toBeGreaterThan(running.indexOf('scanning'));
    expect(running.indexOf('scanning')).toBeGreaterThan(0);
  }, 60_000);

  it("a complete team's new run is started once, however many ask at once; a team named twice is run once", async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Again', body: 'Shorter.' });
    // Both judge the lifecycle complete with a new mission; the state lock lets one start the run.
    const asked = await Promise.allSettled([1, 2].map(() => retryTeam(openFederation(root), 'docs', config)));
    expect(asked.filter((a) => a.status === 'fulfilled').map((a) => a.value.run)).toEqual([2]);
    expect(asked.find((a) => a.status === 'rejected')).toMatchObject({ reason: { code: 'NOT_FAILED' } });
    const retried = async () =>
      (await readFederationJournal(openFederation(root).backend)).filter((r) => r.kind === 'retried');
    expect(await retried()).toHaveLength(1);

    await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Once more', body: 'Again.' });
    const summary = await runFederation(openFederation(root), {
      config,
      teams: ['docs', 'docs'],
      agent: fakeAgent('complete'),
      pollMs: 50,
    });
    expect(summary.teams.map((t) => [t.team, t.outcome])).toEqual([['docs', 'complete']]);
    expect((await retried()).map((r) => r.kind === 'retried' && r.mission)).toEqual(['Again', 'Once more']);
  }, 120_000);

  it('a failed team sent a newer mission since is retried with that one, and says so; nothing is sent again', async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: failingAgent, pollMs: 50 });
    // As `fed plan --apply` sends a registered team its new mission.
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document it all', body: 'All.' });
    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 2,
      mission: { subject: 'Document it all', body: 'All.' },
      missionSentSince: true,
    });
    expect((await listSignals(openFederation(root), { team: 'docs' })).signals).toHaveLength(2);
    expect(await viewLifecycle(openFederation(root), team(root))).toMatchObject({
      mission: null,
      nextMission: { subject: 'Document it all' },
    });
    await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect((await viewLifecycle(openFederation(root), team(root))).mission?.subject).toBe('Document it all');
  }, 120_000);

  it("another team's directive to a complete team is no new mission: no run starts, its deliverable stays", async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    await onboardTeam(openFederation(root), { domain: 'api' }, { durable: false });
    await sendSignal(openFederation(root), { from: 'api', to: 'docs', type: 'directive', subject: 'Cover it too' });
    await expect(retryTeam(openFederation(root), 'docs', config)).rejects.toMatchObject({ code: 'NOT_FAILED' });
    const summary = await runFederation(openFederation(root), { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(summary.teams).toEqual([]);
    expect(summary.skipped).toContainEqual({ team: 'docs', reason: 'already complete' });
    expect(await viewLifecycle(openFederation(root), team(root))).toMatchObject({ state: 'complete' });
    expect(existsSync(join(team(root).location, 'deliverable.md'))).toBe(true);
  }, 60_000);

  it('run again after an interruption that kept the ended run, it reuses that run number and never loses its journal', async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: failingAgent, pollMs: 50 });
    const paths = workspacePaths(team(root).location);
    const journal = readFileSync(paths.journal, 'utf8');
    // As a retry killed right after keeping the state and moving the journal leaves it.
    mkdirSync(join(paths.history, 'run-1'), { recursive: true });
    copyFileSync(paths.envelope, join(paths.history, 'run-1', 'lifecycle.json'));
    renameSync(paths.journal, join(paths.history, 'run-1', 'journal.jsonl'));
    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 2,
      keptAs: ['.fed/history/run-1'],
    });
    expect(readFileSync(join(paths.history, 'run-1', 'journal.jsonl'), 'utf8')).toBe(journal);
    expect(existsSync(join(paths.history, 'run-2'))).toBe(false);
  }, 60_000);

  it('run again after an interruption that made the run folder and no more, it fills that folder: no empty run is left', async () => {
    const { root, config } = await federationWithMission();
    await launchTeam(openFederation(root), 'docs', { config, agent: failingAgent, pollMs: 50 });
    const paths = workspacePaths(team(root).location);
    const journal = readFileSync(paths.journal, 'utf8');
    // As a retry killed right after making the folder the ended run is kept in leaves it.
    mkdirSync(join(paths.history, 'run-1'), { recursive: true });
    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 2,
      keptAs: ['.fed/history/run-1'],
    });
    expect(readFileSync(join(paths.history, 'run-1', 'journal.jsonl'), 'utf8')).toBe(journal);
    expect(existsSync(join(paths.history, 'run-2'))).toBe(false);
  }, 60_000);

  it('a team that failed before its mission was applied starts run 2 with the directive waiting in its inbox', async () => {
    const { root, config } = await federationWithMission();
    await failNow(root);
    // A second directive waits behind it: the first is the one the team takes, as fed team show names it.
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Also the API' });
    expect(await viewLifecycle(openFederation(root), team(root))).toMatchObject({
      state: 'failed',
      mission: null,
      nextMission: { subject: 'Document the project' },
    });

    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 2,
      mission: { subject: 'Document the project', body: 'Write deliverable.md' },
      // It was sent before run 1 failed: not a mission "sent since".
      missionSentSince: false,
      state: 'preparing',
    });
    // The waiting directive is the mission, applied once: meta sends nothing again.
    expect((await listSignals(openFederation(root), { team: 'docs' })).signals).toHaveLength(2);
    const done = await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(done.state).toBe('complete');
    expect((await viewLifecycle(openFederation(root), team(root))).mission?.subject).toBe('Document the project');
  }, 60_000);

  it('a team that failed with no mission at all is told to send one, then its retry takes that one', async () => {
    const { root, config } = await federationWithMission({ mission: false });
    await failNow(root);
    const refused = retryTeam(openFederation(root), 'docs', config);
    await expect(refused).rejects.toMatchObject({ code: 'NO_MISSION' });
    await expect(refused).rejects.toThrow(
      'team "docs" failed before it had a mission, so a new run would have none; send it one: fed signal send --to docs --type directive --subject "<mission>", then retry: fed team retry docs',
    );
    // A pause command is no mission.
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'pause' });
    await expect(retryTeam(openFederation(root), 'docs', config)).rejects.toMatchObject({ code: 'NO_MISSION' });

    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document it', body: 'All.' });
    expect(await retryTeam(openFederation(root), 'docs', config)).toMatchObject({
      run: 2,
      mission: { subject: 'Document it', body: 'All.' },
    });
  }, 60_000);
});
