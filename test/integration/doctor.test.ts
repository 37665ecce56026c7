import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { archiveSignals, initFederation, onboardTeam, openFederation, runDoctor, sendSignal } from 'fed';
import {
  type DoctorReport,
  federationPaths,
  onboardingPaths,
  readRegistry,
  runningProcessesNamed,
  toJsonText,
  workspacePaths,
} from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NODE_SUPPORT_OUTPUT } from '../helpers/node-support.js';
import { NO_SERVER_LINE } from '../helpers/doctor-output.js';

/** A pid whose process has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

function deadOwner(pid: number): string {
  return JSON.stringify({ pid, host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() });
}

async function federation(teams: string[]): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, { durable: false });
  return root;
}

const runningGitIn = (root: string) => runningProcessesNamed('git')?.some((p) => p.cwd === root) ?? false;

const report = (text: string) => JSON.parse(text) as DoctorReport;

describe('fed doctor', () => {
  it('finds nothing in a healthy federation (exit 0), where an archived team may have lost its workspace', async () => {
    const root = await federation(['docs', 'old']);
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Go' }, { durable: false });
    expect((await runFed(['--root', root, 'team', 'archive', 'old'])).code).toBe(0);
    rmSync(join(root, '.fed', 'teams', 'old'), { recursive: true });
    const result = await runFed(['--root', root, 'doctor']);
    expect(result, result.stderr).toMatchObject({
      code: 0,
      stdout: `${NODE_SUPPORT_OUTPUT}${NO_SERVER_LINE}no problems found in ${root}\n`,
    });
  });

  it('a team whose workspace is gone is a finding with what to do about it: restore it, or archive the team', async () => {
    const root = await federation(['docs', 'gone']);
    rmSync(join(root, '.fed', 'teams', 'gone'), { recursive: true });
    const report = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }));
    expect(report.findings.filter((f) => f.check === 'workspace')).toEqual([
      expect.objectContaining({
        team: 'gone',
        problem: expect.stringContaining('does not exist') as unknown,
        fix: 'restore the workspace, or archive the team: fed team archive gone',
      }),
    ]);
  });

  it('a schedule of a hand-written config that fed serve would never send is a finding: a cron of no day, a team gone or archived', async () => {
    const root = await federation(['docs', 'old']);
    expect((await runFed(['--root', root, 'team', 'archive', 'old'])).code).toBe(0);
    const config = join(root, 'federate.config.json');
    const schedule = (id: string, to: string, cron: string) => ({ id, to, subject: 'Refresh', cron });
    writeFileSync(
      config,
      JSON.stringify({
        ...JSON.parse(readFileSync(config, 'utf8')),
        schedules: [
          schedule('fine', 'docs', '0 3 * * *'),
          schedule('leap', 'docs', '0 9 30 2 *'),
          schedule('gone', 'nobody', '0 3 * * *'),
          schedule('retired', 'old', '0 3 * * *'),
        ],
      }),
    );
    const found = (await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }))).findings.filter(
      (f) => f.check === 'schedule',
    );
    expect(found).toEqual([
      expect.objectContaining({
        path: config,
        problem:
          'schedule "leap" never fires: its cron expression "0 9 30 2 *" names no day that exists (like 30 February)',
        fix: 'fed schedule remove leap, then add it again with a cron expression that fires, like "0 3 * * 1-5"',
        fixable: false,
      }),
      expect.objectContaining({
        problem: 'schedule "gone" is never sent by fed serve: "nobody" is no team of this federation',
      }),
      expect.objectContaining({
        team: 'old',
        problem:
          'schedule "retired" is never sent by fed serve: team "old" is archived (archived teams receive no signals)',
      }),
    ]);
  });

  it("a completed team's report to meta, acknowledged and archived since, is not owed again", async () => {
    const root = await federation(['docs']);
    writeFileSync(join(root, 'README.md'), '# project\n\nA small project.\n');
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document the project' });
    expect((await runFed(['--root', root, 'run'])).code).toBe(0);
    expect((await runFed(['--root', root, 'signal', 'ack', '--all'])).code).toBe(0);
    const later = new Date(Date.now() + 60_000);
    await archiveSignals(openFederation(root), { olderThanMs: 1_000 }, { now: later });
    expect(readdirSync(join(root, '.fed', 'signals', 'inbox')).filter((name) => name.endsWith('.json'))).toEqual([]);
    const doctor = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }));
    expect(doctor.findings.filter((f) => f.check === 'state')).toEqual([]);
  }, 60_000);

  it('names what crashes left behind, --fix repairs what fed can, and the rest stays reported (exit 1)', async () => {
    const root = await federation(['docs', 'bad']);
    const paths = federationPaths(root);
    const docs = workspacePaths(join(paths.teams, 'docs'));
    const pid = deadPid();
    writeFileSync(paths.registryLock, deadOwner(pid));
    mkdirSync(docs.state, { recursive: true });
    writeFileSync(docs.consumerLease, deadOwner(pid));
    const temp = join(docs.inbox, `.2026-01-01T000000Z-directive-go.json.${pid}.0123456789ab.tmp`);
    writeFileSync(temp, '{"half');
    // An onboarding killed after its intent record and workspace, before registering.
    mkdirSync(paths.onboarding, { recursive: true });
    const apiLocation = join(paths.teams, 'api');
    writeFileSync(
      onboardingPaths(root, 'api').intent,
      toJsonText({
        domain: 'api',
        domainId: 'api',
        archetypeId: 'deliverable',
        placementType: 'directory',
        location: apiLocation,
        startedAt: new Date().toISOString(),
      }),
    );
    mkdirSync(join(apiLocation, '.fed', 'signals', 'inbox'), { recursive: true });
    // A workspace an older fed made and never registered (its marker), and a folder fed did not make.
    mkdirSync(join(paths.teams, 'old', '.fed'), { recursive: true });
    writeFileSync(join(paths.teams, 'old', '.fed', 'team.json'), toJsonText({ federationRoot: root, domainId: 'old' }));
    mkdirSync(join(paths.teams, 'stray'));
    const bad = workspacePaths(join(paths.teams, 'bad'));
    mkdirSync(bad.state, { recursive: true });
    writeFileSync(bad.envelope, '{"machineId": ');

    const found = await runFed(['--root', root, 'doctor', '--json']);
    expect(found.code, found.stderr).toBe(1);
    const byCheck = report(found.stdout).findings.map((f) => [f.check, f.path, f.fixable]);
    expect(byCheck).toEqual(
      expect.arrayContaining([
        ['stale-lock', paths.registryLock, true],
        ['stale-lock', docs.consumerLease, true],
        ['temp-file', temp, true],
        ['onboarding', onboardingPaths(root, 'api').intent, true],
        ['orphan-workspace', join(paths.teams, 'old'), true],
        ['orphan-workspace', join(paths.teams, 'stray'), false],
        ['state', bad.envelope, false],
      ]),
    );
    expect(byCheck).toHaveLength(7);

    const text = await runFed(['--root', root, 'doctor']);
    expect(text.stdout).toContain(`stale-lock: lock ${paths.registryLock} is held by pid ${pid}`);
    expect(text.stdout).toContain(`temp-file (docs): temp file ${temp} left by a killed writer (pid ${pid})`);
    expect(text.stdout).toContain('7 problems; 5 can be fixed with: fed doctor --fix');

    const fixed = await runFed(['--root', root, 'doctor', '--fix']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(1);
    expect(fixed.stdout).toContain('7 problems, 5 fixed');
    for (const gone of [
      paths.registryLock,
      docs.consumerLease,
      temp,
      apiLocation,
      join(paths.teams, 'old'),
      onboardingPaths(root, 'api').intent,
    ]) {
      expect(existsSync(gone), gone).toBe(false);
    }
    const after = report((await runFed(['--root', root, 'doctor', '--json'])).stdout);
    expect(after.findings.map((f) => f.check).sort()).toEqual(['orphan-workspace', 'state']);
    // And the interrupted onboarding can simply be run again.
    expect((await runFed(['--root', root, 'team', 'onboard', 'api'])).code).toBe(0);
  }, 60_000);

  it('--fix removes only what fed made: nothing through a linked .fed/teams, no file that only looks like a temp file or that git tracks', async () => {
    const root = await federation([]);
    const paths = federationPaths(root);
    const skills = join(paths.fedDir, 'skills');
    mkdirSync(skills, { recursive: true });
    const lookalike = join(skills, '.notes.tmp');
    writeFileSync(lookalike, 'mine');
    const tracked = join(skills, `.playbook.md.${deadPid()}.0123456789ab.tmp`);
    writeFileSync(tracked, 'kept in git');
    spawnSync('git', ['init', '-q'], { cwd: root });
    spawnSync('git', ['add', '-f', tracked], { cwd: root });
    // .fed/teams links to a folder elsewhere, holding what looks like a killed onboarding's workspace.
    const elsewhere = tempDir();
    mkdirSync(join(elsewhere, 'ghost', '.fed'), { recursive: true });
    writeFileSync(
      join(elsewhere, 'ghost', '.fed', 'team.json'),
      toJsonText({ federationRoot: root, domainId: 'ghost' }),
    );
    rmSync(paths.teams, { recursive: true, force: true });
    symlinkSync(elsewhere, paths.teams);

    const fixed = await runFed(['--root', root, 'doctor', '--fix']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(1);
    for (const kept of [lookalike, tracked, join(elsewhere, 'ghost', '.fed', 'team.json')])
      expect(existsSync(kept), kept).toBe(true);
    const after = report((await runFed(['--root', root, 'doctor', '--json'])).stdout);
    expect(after.findings.map((f) => [f.check, f.path, f.fixable])).toEqual([['orphan-workspace', paths.teams, false]]);
  }, 60_000);

  it('a file where the delivery facts folder belongs: sends are refused naming it, doctor reports it', async () => {
    const root = await federation(['docs']);
    const delivery = join(root, '.fed', 'delivery');
    rmSync(delivery, { recursive: true, force: true });
    writeFileSync(delivery, 'not a folder');
    const send = await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Go',
    ]);
    expect(send.code, send.stderr).toBe(2);
    // Named by the folder (mkdir) or by the file fed writes in it (open): either way the path shows the file.
    expect(send.stderr).toMatch(
      new RegExp(
        `^fed: ${delivery}(/[^/:]+)?: a part of it is a file where fed expects a directory \\((mkdir|open)\\) \\[ENOTDIR\\]; move that file aside\n$`,
      ),
    );
    expect(readdirSync(workspacePaths(join(root, '.fed', 'teams', 'docs')).inbox)).toEqual([]);
    const doctor = await runFed(['--root', root, 'doctor', '--json']);
    expect(doctor.code).toBe(1);
    expect(report(doctor.stdout).findings).toEqual([
      expect.objectContaining({ check: 'folder', path: delivery, fixable: false, fixed: false }),
    ]);
  });

  it("reports git's index.lock that no git holds, with how to remove it; one a running git holds is left alone", async () => {
    const root = await federation([]);
    execFileSync('git', ['init', '-q'], { cwd: root });
    const lock = join(root, '.git', 'index.lock');
    writeFileSync(lock, '');
    const stale = await runDoctor(openFederation(root));
    expect(stale.findings).toEqual([
      expect.objectContaining({
        check: 'git-lock',
        path: lock,
        fixable: false,
        fix: `check that no git runs in ${root}, then remove it: rm ${lock}`,
      }),
    ]);
    // A git working in the repository right now (one waiting on its stdin) may be the lock's holder.
    const running = spawn('git', ['hash-object', '--stdin'], { cwd: root, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      await vi.waitFor(() => expect(runningGitIn(root)).toBe(true), { timeout: 15_000 });
      expect((await runDoctor(openFederation(root))).findings).toEqual([]);
    } finally {
      running.stdin.end();
    }
  });

  it('a corrupt team marker is said corrupt and rewritten by --fix, as its fix says', async () => {
    const root = await federation(['aa']);
    const marker = join(root, '.fed', 'teams', 'aa', '.fed', 'team.json');
    writeFileSync(marker, '{}');
    const found = await runFed(['--root', root, 'doctor']);
    expect(found.code).toBe(1);
    expect(found.stdout).toContain(`marker (aa): the team marker of "aa" is corrupt (federationRoot: expected`);
    expect(found.stdout).not.toContain('fed will not overwrite it');
    expect(found.stdout).toContain('  fix: rewrite it for this team and federation (fed doctor --fix)\n');
    const fixed = await runFed(['--root', root, 'doctor', '--fix']);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toEqual({ federationRoot: root, domainId: 'aa' });
  });

  it('relocates the teams of a federation copied to another folder (registry location and marker)', async () => {
    const original = await federation(['docs']);
    const copy = join(tempDir(), 'copy');
    cpSync(original, copy, { recursive: true });
    const refused = await runFed([
      '--root',
      copy,
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Go',
    ]);
    expect(refused.code).toBe(2);
    const advice = `its own workspace for the team is ${join(copy, '.fed', 'teams', 'docs')}; point the registry there with: fed doctor --fix`;
    expect(refused.stderr).toContain(advice);
    // Reading the teams' workspaces would read the original's: refused the same way, before anything is read.
    for (const args of [['monitor'], ['runs'], ['team', 'show', 'docs']]) {
      const read = await runFed(['--root', copy, ...args]);
      expect(read.code, `${args.join(' ')}: ${read.stdout}`).toBe(2);
      expect(read.stderr).toContain(advice);
    }

    const fixed = await runFed(['--root', copy, 'doctor', '--fix']);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain('workspace (docs)');
    expect(readRegistry(copy).teams[0]?.location).toBe(join(copy, '.fed', 'teams', 'docs'));
    expect(JSON.parse(readFileSync(join(copy, '.fed', 'teams', 'docs', '.fed', 'team.json'), 'utf8'))).toEqual({
      federationRoot: copy,
      domainId: 'docs',
    });
    expect(
      (await runFed(['--root', copy, 'signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'])).code,
    ).toBe(0);
    expect((await runFed(['--root', copy, 'doctor'])).code).toBe(0);
    expect((await runFed(['--root', copy, 'monitor'])).code).toBe(0);
    expect(readRegistry(original).teams[0]?.location).toBe(join(original, '.fed', 'teams', 'docs'));
  }, 60_000);
});
