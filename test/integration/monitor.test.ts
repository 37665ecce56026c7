import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acknowledgeSignal,
  applyLifecycleInputs,
  initFederation,
  onboardTeam,
  openFederation,
  runActors,
  runMonitorCycle,
  sendSignal,
  setTeamStatus,
} from 'fed';
import { formatDuration, getTeam, loadConfig, readRegistry, renderMonitorReport, workspacePaths } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

async function federation() {
  const root = tempDir();
  initFederation(root, {}, {});
  const config = loadConfig(root, {}).config;
  return { root, config, team: (id: string) => getTeam(readRegistry(root), id) };
}

const event = (root: string, id: string, type: string, data: Record<string, unknown> = {}) =>
  applyLifecycleInputs(
    openFederation(root),
    getTeam(readRegistry(root), id),
    [{ source: 'event', event: { type, ...data } }],
    { durable: false },
  );

describe('monitoring cycle', () => {
  it('reports every team with lifecycle, time in state, signal counts both ways, deliverable and health', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await onboardTeam(openFederation(root), { domain: 'api', archetypeId: 'coding' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document it' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'question', subject: 'When?' });
    await sendSignal(openFederation(root), { from: 'docs', to: 'meta', type: 'report', subject: 'Started' });
    await sendSignal(openFederation(root), { from: 'docs', to: 'api', type: 'question', subject: 'Which endpoints?' });
    await acknowledgeSignal(
      openFederation(root),
      'api',
      (await sendSignal(openFederation(root), { from: 'docs', to: 'api', type: 'report', subject: 'fyi' })).message.id,
    );

    const report = await runMonitorCycle(openFederation(root), { config });
    const docs = report.teams.find((t) => t.team === 'docs')!;
    expect(docs).toMatchObject({
      archetype: 'deliverable',
      status: 'active',
      lifecycle: { machine: 'deliverable', state: 'preparing', mission: null },
      inbox: { total: 2, unacknowledged: 2 },
      outbox: { total: 3, unacknowledged: 2 },
      deliverable: { path: join(team('docs').location, 'deliverable.md'), exists: false, sizeBytes: 0 },
      healthy: true,
      reasons: [],
      error: null,
    });
    expect(report.meta).toEqual({ inbox: { total: 1, unacknowledged: 1 }, outbox: { total: 2, unacknowledged: 2 } });
    expect(report.totals).toEqual({ teams: 2, healthy: 2, unhealthy: 0, unacknowledged: 1 + 2 + 1 });
  });

  it('a working lifecycle not updated within the limit is stale; paused, finished and mission-less ones are not', async () => {
    const { root, config } = await federation();
    for (const domain of ['busy', 'idle', 'paused']) await onboardTeam(openFederation(root), { domain });
    for (const domain of ['busy', 'paused'])
      await sendSignal(openFederation(root), { to: domain, type: 'directive', subject: 'work' });
    await runActors(openFederation(root), { once: true });
    await setTeamStatus(openFederation(root), 'paused', { type: 'PAUSE' });
    const later = new Date(Date.now() + 11 * 60_000);
    const report = await runMonitorCycle(openFederation(root), { config, now: later });
    const byTeam = Object.fromEntries(report.teams.map((t) => [t.team, t]));
    expect(byTeam.busy?.reasons).toEqual([
      expect.stringMatching(/^stale: no lifecycle update for 11 min in preparing \(limit 10 min\)$/),
    ]);
    expect(byTeam.idle?.healthy).toBe(true);
    expect(byTeam.paused?.healthy).toBe(true);
    expect(report.teams[0]?.team).toBe('busy');
    expect(
      (await runMonitorCycle(openFederation(root), { config, now: later, staleAfterMinutes: 15 })).totals.unhealthy,
    ).toBe(0);
  });

  it("a team waiting by its archetype's completion policy is not stale; archetype health checks apply", async () => {
    const { root, config } = await federation();
    await onboardTeam(openFederation(root), { domain: 'app', archetypeId: 'coding' });
    await onboardTeam(openFederation(root), { domain: 'helper', archetypeId: 'consultant' });
    await onboardTeam(openFederation(root), { domain: 'asked', archetypeId: 'consultant' });
    for (const domain of ['app', 'helper', 'asked'])
      await sendSignal(openFederation(root), { to: domain, type: 'directive', subject: 'work' });
    await runActors(openFederation(root), { once: true });
    for (const [type, data] of [
      ['PLAN_READY', { tasks: ['x'] }],
      ['CHANGES_COMMITTED', { commit: 'abc' }],
      ['TESTS_COMPLETE', { passed: 1, failed: 0 }],
      ['REVIEW_REQUESTED', { pullRequest: 'fed/app' }],
    ] as const) {
      await event(root, 'app', type, data);
    }
    for (const domain of ['helper', 'asked']) {
      await event(root, domain, 'INDEXING_STARTED');
      await event(root, domain, 'INDEX_READY', { filesIndexed: 3 });
    }
    await setTeamStatus(openFederation(root), 'asked', { type: 'PAUSE' });
    await sendSignal(openFederation(root), { to: 'asked', type: 'question', subject: 'Where is main?' });
    await event(root, 'asked', 'QUESTION_RECEIVED', { signalId: 'q1', subject: 'Where is main?', from: 'meta' });
    const report = await runMonitorCycle(openFederation(root), { config, now: new Date(Date.now() + 60 * 60_000) });
    const byTeam = Object.fromEntries(report.teams.map((t) => [t.team, t]));
    expect(byTeam.app).toMatchObject({ lifecycle: { state: 'pr-review' }, healthy: true, deliverable: null });
    expect(byTeam.helper).toMatchObject({ lifecycle: { state: 'ready' }, healthy: true, deliverable: null });
    expect(byTeam.asked?.reasons).toEqual(['1 question(s) wait while the team is paused']);
  });

  it('a complete team needs a non-empty deliverable; a failed team is unhealthy with its reason', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await onboardTeam(openFederation(root), { domain: 'broken' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'work' });
    await runActors(openFederation(root), { once: true });
    await event(root, 'docs', 'PLAN_READY', { sources: ['src'] });
    await event(root, 'docs', 'SCAN_COMPLETE', { filesRead: 1 });
    await event(root, 'docs', 'INSIGHTS_READY');
    await event(root, 'docs', 'DOCUMENT_WRITTEN', { path: 'deliverable.md', bytes: 10 });
    await event(root, 'broken', 'FAIL', { reason: 'sources inaccessible' });
    const deliverable = join(team('docs').location, 'deliverable.md');
    writeFileSync(deliverable, '');
    let byTeam = Object.fromEntries(
      (await runMonitorCycle(openFederation(root), { config })).teams.map((t) => [t.team, t]),
    );
    expect(byTeam.docs?.reasons).toEqual(['deliverable deliverable.md is empty']);
    expect(byTeam.broken?.reasons).toEqual(['failed: sources inaccessible']);
    rmSync(deliverable);
    byTeam = Object.fromEntries(
      (await runMonitorCycle(openFederation(root), { config })).teams.map((t) => [t.team, t]),
    );
    expect(byTeam.docs?.reasons).toEqual(['deliverable deliverable.md is missing']);
    writeFileSync(deliverable, '# Done\n');
    byTeam = Object.fromEntries(
      (await runMonitorCycle(openFederation(root), { config })).teams.map((t) => [t.team, t]),
    );
    expect(byTeam.docs).toMatchObject({ healthy: true, deliverable: { exists: true, sizeBytes: 7 } });
  });

  it('errors in the agent log since the last launch make a team unhealthy; earlier launches do not count', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    const log = workspacePaths(team('docs').location).agentLog;
    mkdirSync(join(log, '..'), { recursive: true });
    writeFileSync(
      log,
      '=== fed launch 2026-01-01T00:00:00Z ===\nTypeError: old problem\n=== fed launch 2026-01-02T00:00:00Z ===\nscanned 0 errors in 12 files\nall good\n',
    );
    expect((await runMonitorCycle(openFederation(root), { config })).teams[0]?.healthy).toBe(true);
    writeFileSync(log, '=== fed launch 2026-01-02T00:00:00Z ===\nworking\nError: ENOENT: no such file\n', {
      flag: 'a',
    });
    expect((await runMonitorCycle(openFederation(root), { config })).teams[0]?.reasons).toEqual([
      'errors in agent log since the last launch: Error: ENOENT: no such file',
    ]);
  });

  it("what Node itself writes to the agent's stderr (its warnings, V8's complaint about a flag) is not an error", async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    const log = workspacePaths(team('docs').location).agentLog;
    mkdirSync(join(log, '..'), { recursive: true });
    // What this very Node writes, not a copy of one version's wording.
    const node = spawnSync(
      process.execPath,
      [
        '-e',
        "require('v8').setFlagsFromString('--no-such-flag-for-fed'); process.emitWarning('TypeError: in a warning', 'DeprecationWarning', 'DEP0999'); process.emitWarning('Error: plain');",
      ],
      { encoding: 'utf8' },
    );
    expect(node.stderr).toContain('--no-such-flag-for-fed');
    writeFileSync(log, `=== fed launch 2026-01-02T00:00:00Z ===\n${node.stderr}fed-agent: wrote deliverable.md\n`);
    expect((await runMonitorCycle(openFederation(root), { config })).teams[0]).toMatchObject({ healthy: true });
    writeFileSync(log, 'Error: the agent itself failed\n', { flag: 'a' });
    expect((await runMonitorCycle(openFederation(root), { config })).teams[0]?.reasons).toEqual([
      'errors in agent log since the last launch: Error: the agent itself failed',
    ]);
  });

  it('a team whose files are corrupt is shown with the error, never dropped', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await onboardTeam(openFederation(root), { domain: 'ok' });
    mkdirSync(workspacePaths(team('docs').location).state, { recursive: true });
    writeFileSync(workspacePaths(team('docs').location).envelope, '{ broken');
    const report = await runMonitorCycle(openFederation(root), { config });
    expect(report.teams.map((t) => t.team)).toEqual(['docs', 'ok']);
    expect(report.teams[0]).toMatchObject({
      healthy: false,
      error: expect.stringContaining('lifecycle.json is corrupt') as unknown,
    });
  });

  it('cycle after cycle (known lifecycles kept), a lifecycle that changed — or broke — is read again', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    const fed = openFederation(root);
    const known = new Map();
    const state = async () => (await runMonitorCycle(fed, { config, known })).teams[0]!;
    expect((await state()).lifecycle?.state).toBe('preparing');
    expect(known.has('docs')).toBe(true);
    await event(root, 'docs', 'FAIL', { reason: 'boom' });
    expect(await state()).toMatchObject({ lifecycle: { state: 'failed', failure: 'boom' }, healthy: false });
    writeFileSync(workspacePaths(team('docs').location).envelope, '{ broken');
    expect((await state()).error).toContain('lifecycle.json is corrupt');
  });

  it("a team whose workspace is gone, or that the registry places outside the root, is unhealthy with the workspace check's reason", async () => {
    const { root, config, team } = await federation();
    for (const domain of ['gone', 'moved', 'never-applied', 'working'])
      await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(openFederation(root), { to: 'moved', type: 'directive', subject: 'Mission', body: 'go' });
    await sendSignal(openFederation(root), { to: 'working', type: 'directive', subject: 'Mission', body: 'go' });
    await runActors(openFederation(root), { once: true, durable: false });
    rmSync(team('gone').location, { recursive: true });
    // The registry edited to a copy of the workspace elsewhere: its lifecycle is readable there.
    const elsewhere = join(tempDir(), 'moved');
    cpSync(team('moved').location, elsewhere, { recursive: true });
    const file = join(root, '.fed', 'team-registry.json');
    const registry = JSON.parse(readFileSync(file, 'utf8')) as { teams: Array<{ domainId: string; location: string }> };
    registry.teams.find((t) => t.domainId === 'moved')!.location = elsewhere;
    writeFileSync(file, JSON.stringify(registry, null, 2));

    const report = await runMonitorCycle(openFederation(root), { config });
    const health = Object.fromEntries(report.teams.map((t) => [t.team, t]));
    expect(health.gone).toMatchObject({ healthy: false, error: null });
    expect(health.gone!.reasons.join('\n')).toContain(
      `the workspace of team "gone" (${team('gone').location}, from the registry) does not exist`,
    );
    expect(health.moved!.healthy).toBe(false);
    expect(health.moved!.reasons.join('\n')).toContain('the workspace of team "moved" is outside the federation root');
    expect(health['never-applied']).toMatchObject({ healthy: true, reasons: [] });
    expect(health.working).toMatchObject({ healthy: true, reasons: [] });
  });

  it('cycle after cycle in one process, a workspace deleted since the first is found gone', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'gone' }, { durable: false });
    const fed = openFederation(root);
    expect((await runMonitorCycle(fed, { config })).teams[0]).toMatchObject({ team: 'gone', healthy: true });
    rmSync(team('gone').location, { recursive: true });
    expect((await runMonitorCycle(fed, { config })).teams[0]).toMatchObject({ team: 'gone', healthy: false });
  });

  it('a lifecycle that is valid JSON but not a valid envelope (what the apply refuses) makes the team unhealthy', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await event(root, 'docs', 'FAIL', { reason: 'boom' });
    const path = workspacePaths(team('docs').location).envelope;
    const envelope = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    // Only parts the monitor does not show are damaged: the apply would skip this team, so it is unhealthy.
    writeFileSync(path, JSON.stringify({ ...envelope, pendingReports: 'garbage', seq: -5 }));
    const report = await runMonitorCycle(openFederation(root), { config });
    expect(report.teams[0]).toMatchObject({
      healthy: false,
      error: expect.stringContaining('lifecycle.json is corrupt') as unknown,
    });
  });

  it('renders an aligned table, unhealthy first, colours only when asked', async () => {
    const { root, config } = await federation();
    await onboardTeam(openFederation(root), { domain: 'a-team' });
    await onboardTeam(openFederation(root), { domain: 'b' });
    await event(root, 'b', 'FAIL', { reason: 'boom' });
    const report = await runMonitorCycle(openFederation(root), { config });
    const plain = renderMonitorReport(report);
    const lines = plain.split('\n');
    expect(lines[0]).toMatch(
      /^TEAM\s+ARCHETYPE\s+STATUS\s+STATE\s+IN STATE\s+UPDATED\s+INBOX\/UNACK\s+OUTBOX\/UNACK\s+DELIVERABLE\s+HEALTH$/,
    );
    expect(lines[1]).toMatch(/^b\s+deliverable\s+active\s+failed\s+.*failed: boom$/);
    expect(lines[1]!.indexOf('deliverable')).toBe(lines[0]!.indexOf('ARCHETYPE'));
    expect(plain).not.toContain('\x1b[');
    expect(renderMonitorReport(report, { color: true })).toContain('\x1b[31m');
  });

  it('formats durations for humans', () => {
    expect([5_000, 125_000, 3 * 3_600_000 + 20 * 60_000, 50 * 3_600_000].map(formatDuration)).toEqual([
      '5s',
      '2m',
      '3h 20m',
      '2d 2h',
    ]);
  });
});

describe('lifecycle updatedAt', () => {
  it('ignores file times: staleness comes from the lifecycle state file, not from touching files', async () => {
    const { root, config, team } = await federation();
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'work' });
    await runActors(openFederation(root), { once: true });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(workspacePaths(team('docs').location).envelope, old, old);
    expect((await runMonitorCycle(openFederation(root), { config })).teams[0]?.healthy).toBe(true);
  });
});
