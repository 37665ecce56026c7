import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  launchTeam,
  listSignals,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  setTeamStatus,
  viewLifecycle,
  type FederationConfig,
} from 'fed';
import {
  federationPaths,
  getTeam,
  type JournalLine,
  loadHooks,
  readLastRun,
  readRegistry,
  splitCommand,
  workspacePaths,
} from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const team = (root: string) => getTeam(readRegistry(root), 'docs');
const metaSignals = async (root: string) =>
  (await listSignals(openFederation(root), { team: 'meta' })).signals.map(
    (s) => `${s.message.type}: ${s.message.subject}`,
  );

describe('fed launch (library)', () => {
  it('runs the agent in its workspace to complete, shows progress, reports to meta, logs the agent', async () => {
    const { root, config } = await federationWithMission();
    const progress: JournalLine[] = [];
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      onProgress: (l) => progress.push(l),
      pollMs: 50,
    });
    expect(result).toMatchObject({
      team: 'docs',
      state: 'complete',
      outcome: 'complete',
      agentExitCode: 0,
      reason: null,
      deliverableExists: true,
    });
    expect(progress.map((l) => `${l.from}→${l.to}`)).toEqual([
      'preparing→preparing',
      'preparing→scanning',
      'scanning→distilling',
      'distilling→aggregating',
      'aggregating→complete',
    ]);
    expect(await metaSignals(root)).toContain('report: deliverable ready: deliverable.md');
    const log = readFileSync(workspacePaths(team(root).location).agentLog, 'utf8');
    expect(log).toMatch(/=== fed launch .* ===\ncommand: \[".*node.*complete\.mjs"\]\ncwd: .*\/\.fed\/teams\/docs/);
    expect(log).toContain(`agent started in ${team(root).location} for docs`);
    // The prompt the agent got holds the mission and the protocol.
    const prompt = readFileSync(workspacePaths(team(root).location).launchPrompt, 'utf8');
    expect(prompt).toContain('Document the project');
    expect(prompt).toContain('fed event SCAN_COMPLETE');
  });

  it('leaves no timer behind once the agent has exited: the last launch of a run never waits out a poll', async () => {
    const { root, config } = await federationWithMission();
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    // A poll an hour long: were its timer to hold the process, `fed launch` and `fed run` would linger that long.
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      pollMs: 3_600_000,
    });
    expect(result.outcome).toBe('complete');
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('a missing playbook skill is a warning naming the file, not silently dropped from the prompt (#18 item 6)', async () => {
    const { root, config } = await federationWithMission();
    const skill = join(federationPaths(root).skills, `${config.playbookSkill}.md`);
    rmSync(skill);
    const result = await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(result.outcome).toBe('complete');
    expect(result.warnings).toEqual([
      `the playbook skill ${skill} does not exist, so the launch prompt has none; create it or fix playbookSkill (fed config show checks it)`,
    ]);
    expect(readFileSync(workspacePaths(team(root).location).launchPrompt, 'utf8')).not.toContain('## Playbook');
  });

  it('an agent that crashes midway, after progress, pauses the team with its exit code and alerts meta', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('exit-midway'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused', agentExitCode: 1 });
    expect(result.reason).toBe('crashed: the agent exited with code 1');
    expect(result.lastRun).toMatchObject({
      preset: 'custom',
      outcome: 'crashed',
      progressed: true,
      stateBefore: 'preparing',
      stateAfter: 'paused',
    });
    expect((await viewLifecycle(openFederation(root), team(root))).pausedFrom).toBe('scanning');
    expect(await metaSignals(root)).toContain('alert: team docs paused: crashed');
    expect(readFileSync(result.logPath, 'utf8')).toContain('something broke');
  });

  it('an agent that exits without any progress fails the team with its exit code and state', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: `'${process.execPath}' -e "process.exit(4)"`,
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed', agentExitCode: 4 });
    expect(result.reason).toBe(
      'crashed: the agent exited with code 4 (in state preparing, before the lifecycle was complete)',
    );
    expect((await viewLifecycle(openFederation(root), team(root))).failure).toEqual({
      reason: result.reason,
      state: 'preparing',
    });
    expect(await metaSignals(root)).toContain('alert: team docs failed');
  });

  it('--timeout stops a hung agent and pauses the team with that reason', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('hang'),
      timeoutSeconds: 3,
      pollMs: 50,
      graceMs: 1000,
    });
    expect(result).toMatchObject({
      outcome: 'paused',
      state: 'paused',
      reason: 'timeout: the agent timed out after 3 s (--timeout)',
    });
    expect(result.lastRun.outcome).toBe('timeout');
  });

  it('a wall-time limit (agent.limits.maxMinutes) stops the agent and pauses the team', async () => {
    const { root, config } = await federationWithMission();
    const limited = { ...config, agent: { ...config.agent, limits: { maxMinutes: 0.05 } } };
    const result = await launchTeam(openFederation(root), 'docs', {
      config: limited,
      agent: fakeAgent('hang'),
      pollMs: 50,
      graceMs: 1000,
    });
    expect(result).toMatchObject({
      outcome: 'paused',
      state: 'paused',
      reason: 'timeout: reached the wall-time limit (0.05 min)',
    });
  });

  it('without the sandbox, an agent that edits a tracked file of the codebase fails the read-only guard', async () => {
    const { root, config } = await federationWithMission();
    const unsandboxed = { ...config, agent: { ...config.agent, sandbox: false } };
    const result = await launchTeam(openFederation(root), 'docs', {
      config: unsandboxed,
      agent: fakeAgent('edit-codebase'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(result.reason).toBe('codebase modified: README.md');
    // Its completion was refused by fed's check: no fix attempt for a broken rule.
    expect(result.lastRun).toMatchObject({ outcome: 'rejected', reason: result.reason, fixAttempts: 0 });
    expect(await metaSignals(root)).toContain('alert: team docs failed');
  });

  it('a deliverable that breaks the documentation standards fails the team before complete', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      // No fix attempts: the refusal stands (launch-fix-attempts.test.ts hands it back).
      config: { ...config, agent: { ...config.agent, fixAttempts: 0 } },
      agent: fakeAgent('bad-document'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed', agentExitCode: 2 });
    expect(result.reason).toMatch(
      /^document structure cannot be determined: \d+ violation\(s\) in .*deliverable\.md: line \d+: /,
    );
    expect(result.lastRun).toMatchObject({ outcome: 'rejected', reason: result.reason, fixAttempts: 0 });
    expect(await metaSignals(root)).toContain('alert: team docs failed');
  });

  it('pause during a run stops the agent gracefully; after resume a relaunch continues where it was', async () => {
    const { root, config } = await federationWithMission();
    const launch = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('slow-until-stopped'),
      pollMs: 50,
    });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).state === 'scanning',
      15_000,
      'the agent to start scanning',
    );
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'pause' });
    const paused = await launch;
    // Why it stopped is said: fed serve tells a person's pause from a failure by it (no backoff).
    expect(paused).toMatchObject({ outcome: 'paused', state: 'paused', reason: 'stopped because the team was paused' });
    expect(paused.lastRun.outcome).toBe('interrupted');
    expect(existsSync(join(team(root).location, 'stopped-gracefully'))).toBe(true);
    expect(team(root).status).toBe('paused');
    await expect(launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete') })).rejects.toThrow(
      'team "docs" is paused; resume it first: fed team resume docs',
    );

    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' });
    expect((await viewLifecycle(openFederation(root), team(root))).state).toBe('scanning');
    const resumed = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      pollMs: 50,
    });
    expect(resumed).toMatchObject({ outcome: 'complete', state: 'complete' });
    const context = JSON.parse(readFileSync(workspacePaths(team(root).location).launchContext, 'utf8')) as {
      state: string;
    };
    expect(context.state).toBe('scanning');
  });

  it('archiving a team while its agent runs is refused; paused first, its run is recorded and it archives', async () => {
    const { root, config } = await federationWithMission();
    const launch = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('slow-until-stopped'),
      pollMs: 50,
    });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).state === 'scanning',
      15_000,
      'the agent to start scanning',
    );
    await expect(setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' })).rejects.toMatchObject({
      code: 'TEAM_BUSY',
      message: expect.stringContaining('pause it first (fed team pause docs'),
    });
    expect(team(root).status).toBe('active');
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' });
    const paused = await launch;
    expect(paused).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(existsSync(workspacePaths(team(root).location).currentRun)).toBe(false);
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' });
    expect(team(root).status).toBe('archived');
    const runs = readFileSync(workspacePaths(team(root).location).runsJournal, 'utf8')
      .trim()
      .split('\n');
    expect(runs.map((line) => (JSON.parse(line) as { outcome: string }).outcome)).toEqual(['interrupted']);
  });

  it('refuses a second launch of a running team, a team without a mission, a finished team', async () => {
    const { root, config } = await federationWithMission();
    const first = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('slow-until-stopped'),
      pollMs: 50,
    });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).state === 'scanning',
      15_000,
      'the first launch',
    );
    await expect(launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete') })).rejects.toThrow(
      /team "docs" is already being run by another process .* only one launch per team/,
    );
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' });
    await first;

    const fresh = await federationWithMission({ mission: false });
    await expect(
      launchTeam(openFederation(fresh.root), 'docs', { config: fresh.config, agent: fakeAgent('complete') }),
    ).rejects.toThrow(
      'team "docs" has no mission yet; send one first: fed signal send --to docs --type directive --subject "<mission>" --body "<details>"',
    );

    const done = await federationWithMission();
    await launchTeam(openFederation(done.root), 'docs', {
      config: done.config,
      agent: fakeAgent('complete'),
      pollMs: 50,
    });
    await expect(
      launchTeam(openFederation(done.root), 'docs', { config: done.config, agent: fakeAgent('complete') }),
    ).rejects.toThrow('team "docs" is already complete; its lifecycle is over');
  });

  it('an agent command that does not exist is a clear error and starts nothing', async () => {
    const { root, config } = await federationWithMission();
    await expect(
      launchTeam(openFederation(root), 'docs', { config, agent: 'no-such-agent-xyz --flag' }),
    ).rejects.toThrow(
      'cannot start the agent "no-such-agent-xyz": not found on PATH; install it, or pass another --agent <command>',
    );
    expect((await viewLifecycle(openFederation(root), team(root))).state).toBe('preparing');
  });

  it('a directory as the agent command is refused as one and starts nothing; one on PATH is passed over', async () => {
    const { root, config } = await federationWithMission();
    const folder = join(tempDir(), 'agents');
    mkdirSync(folder);
    await expect(launchTeam(openFederation(root), 'docs', { config, agent: folder })).rejects.toMatchObject({
      code: 'AGENT_COMMAND',
      message: `cannot start the agent "${folder}": it is a directory, not an executable; install it, or pass another --agent <command>`,
    });
    // No run recorded, the team not paused: as for a program that does not exist.
    expect((await viewLifecycle(openFederation(root), team(root))).state).toBe('preparing');
    expect(team(root).status).toBe('active');
    expect(readLastRun(team(root).location)).toBeNull();
    // A folder named like the program, first on PATH, is no program: the one after it is run.
    const bin = tempDir();
    mkdirSync(join(bin, 'node'));
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: `node '${fileURLToPath(new URL('../fixtures/agents/complete.mjs', import.meta.url))}'`,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'complete' });
  });

  it('a launch refused because the lifecycle cannot be read leaves no lease behind', async () => {
    const { root, config } = await federationWithMission();
    await runActors(openFederation(root), { team: 'docs', once: true, durable: false });
    writeFileSync(workspacePaths(team(root).location).envelope, '{"machineId": "deliv');
    await expect(launchTeam(openFederation(root), 'docs', { config })).rejects.toThrow(/lifecycle\.json is corrupt/);
    // Released: a command in another process after this one would find them held by a process that is gone.
    const paths = workspacePaths(team(root).location);
    expect([existsSync(paths.launchLease), existsSync(paths.consumerLease)]).toEqual([false, false]);
  });

  it("an agent command that does not exist names the config field it was set in: the federation's, or the team's own", async () => {
    const { root, config } = await federationWithMission();
    const launch = (agent: FederationConfig['agent'], agentCommand = config.agentCommand) =>
      launchTeam(openFederation(root), 'docs', { config: { ...config, agentCommand, agent } });
    await expect(launch(config.agent, 'no-such-agent-xyz')).rejects.toThrow(
      'cannot start the agent "no-such-agent-xyz": not found on PATH; install it, or set agentCommand in federate.config.json, or pass --agent <command>',
    );
    await expect(launch({ ...config.agent, teams: { docs: { command: 'no-such-cli-xyz --flag' } } })).rejects.toThrow(
      'cannot start the agent "no-such-cli-xyz": not found on PATH; install it, or set agent.teams.docs.command in federate.config.json, or pass --agent <command>',
    );
    expect((await viewLifecycle(openFederation(root), team(root))).state).toBe('preparing');
  });

  it("an agent command found only where a sandboxed agent can write (a team's own home) is refused, naming it, and never runs (issue 48)", async () => {
    const { root, config } = await federationWithMission();
    // What an agent could leave in its own home, were that home's bin on the launcher's PATH.
    const bin = join(root, '.fed', 'teams', 'docs', '.fed', 'home', '.local', 'bin');
    mkdirSync(bin, { recursive: true });
    const planted = join(bin, 'planted-agent');
    writeFileSync(planted, `#!/bin/sh\ntouch '${bin}/ran'\n`);
    chmodSync(planted, 0o755);
    await expect(
      launchTeam(openFederation(root), 'docs', {
        config,
        agent: 'planted-agent',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      }),
    ).rejects.toThrow(
      `cannot start the agent "planted-agent": not found on PATH (left out: ${planted} — a sandboxed agent can write there, so fed never runs it)`,
    );
    expect(existsSync(join(bin, 'ran'))).toBe(false);
  });
});

describe('importHook', () => {
  it('loads a TypeScript hook module and calls its hooks; a throwing onTransition never corrupts state', async () => {
    const { root, config } = await federationWithMission();
    const hookFile = join(root, 'hooks.ts');
    writeFileSync(
      hookFile,
      `import { appendFileSync } from 'node:fs';
const log = (line: string): void => appendFileSync(${JSON.stringify(join(root, '.fed', 'hook.log'))}, line + '\\n');
export function onInit(context: { command: string }): void { log('init ' + context.command); }
export function onSignal(signal: { subject: string }): void { log('signal ' + signal.subject); }
export function onTransition(team: string, from: string, to: string): void {
  log('transition ' + team + ' ' + from + ' ' + to);
  if (to === 'distilling') throw new Error('hook bug');
}
export function onLaunchComplete(result: { outcome: string }): void { log('complete ' + result.outcome); }
`,
    );
    const hooks = await loadHooks(root, { ...config, importHook: 'hooks.ts' }, 'launch');
    const result = await launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      hooks,
      pollMs: 50,
    });
    expect(result.outcome).toBe('complete');
    expect(result.warnings).toEqual([`importHook ${hookFile}: onTransition threw: hook bug`]);
    // The log lives under .fed/: anything the hook wrote into the codebase would break the read-only rule.
    expect(
      readFileSync(join(root, '.fed', 'hook.log'), 'utf8')
        .trim()
        .split('\n'),
    ).toEqual([
      'init launch',
      'signal Document the project',
      'transition docs preparing scanning',
      'transition docs scanning distilling',
      'transition docs distilling aggregating',
      'transition docs aggregating complete',
      'complete complete',
    ]);
  });

  it('a missing hook file or a throwing onInit is a clear error naming the hook file', async () => {
    const { root, config } = await federationWithMission();
    await expect(loadHooks(root, { ...config, importHook: 'missing.ts' }, 'launch')).rejects.toThrow(
      `importHook ${join(root, 'missing.ts')} (from federate.config.json) does not exist`,
    );
    writeFileSync(join(root, 'bad.mjs'), 'export function onInit() { throw new Error("no init for you"); }\n');
    await expect(loadHooks(root, { ...config, importHook: 'bad.mjs' }, 'launch')).rejects.toThrow(
      `importHook ${join(root, 'bad.mjs')}: onInit threw: no init for you`,
    );
    writeFileSync(join(root, 'syntax.ts'), 'export const = ;\n');
    await expect(loadHooks(root, { ...config, importHook: 'syntax.ts' }, 'launch')).rejects.toThrow(
      `importHook ${join(root, 'syntax.ts')}: could not be loaded`,
    );
  });
});

describe('splitCommand', () => {
  it.each([
    ['fed-agent', ['fed-agent']],
    ['claude -p  --model x', ['claude', '-p', '--model', 'x']],
    [`'/opt/my agent/run' "a b" c\\ d`, ['/opt/my agent/run', 'a b', 'c d']],
    [`sh -c 'echo $HOME; rm -rf /'`, ['sh', '-c', 'echo $HOME; rm -rf /']],
    [`x "say \\"hi\\""`, ['x', 'say "hi"']],
  ])('%s', (command, words) => {
    expect(splitCommand(command)).toEqual(words);
  });

  it('refuses an unclosed quote and an empty command', () => {
    expect(() => splitCommand(`run 'oops`)).toThrow("agentCommand has an unclosed ' quote");
    expect(() => splitCommand('   ')).toThrow('agentCommand is empty');
  });
});

describe('fed launch beside a running actor consumer', () => {
  it('lets `fed actors run` keep consuming the inbox and still runs the agent to complete', async () => {
    const { root, config } = await federationWithMission();
    const stop = new AbortController();
    const daemon = runActors(openFederation(root), { signal: stop.signal, rescanMs: 50 });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).mission !== null,
      15_000,
      'the daemon to apply the mission',
    );
    const result = await launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    stop.abort();
    await daemon;
    expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
  });
});

describe('fed launch: review fixes', () => {
  it('a deliverable team placed in a git worktree completes: writing its own workspace is not a modification', async () => {
    const { root, config } = await federationWithMission({ mission: false });
    await onboardTeam(openFederation(root), { domain: 'wt', placementType: 'worktree' });
    await sendSignal(openFederation(root), { to: 'wt', type: 'directive', subject: 'Document the project' });
    const result = await launchTeam(openFederation(root), 'wt', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
  });

  it('an interrupted launch (Ctrl-C) stops the agent and pauses the team, never fails it', async () => {
    const { root, config } = await federationWithMission();
    const interrupt = new AbortController();
    const launch = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('slow-until-stopped'),
      signal: interrupt.signal,
      pollMs: 50,
    });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).state === 'scanning',
      15_000,
      'the agent to start scanning',
    );
    interrupt.abort();
    const result = await launch;
    expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
    expect(team(root).status).toBe('paused');
  });

  it('an error while supervising stops the agent before the leases are given up', async () => {
    const { root, config } = await federationWithMission();
    const launch = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('slow-until-stopped'),
      pollMs: 50,
    });
    await waitFor(
      async () => (await viewLifecycle(openFederation(root), team(root))).state === 'scanning',
      15_000,
      'the agent to start scanning',
    );
    writeFileSync(workspacePaths(team(root).location).envelope, '{ broken');
    await expect(launch).rejects.toThrow('lifecycle.json is corrupt');
    expect(existsSync(join(team(root).location, 'stopped-gracefully'))).toBe(true);
  });
});
