import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyLifecycleInputs,
  checkDeliverable,
  initFederation,
  learningEntrySchema,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  viewLifecycle,
} from 'fed';
import { getTeam, type LaunchContext } from 'fed/agent';
import { type LaunchRun, packageRoot, readRegistry, workspacePaths } from 'fed/testing';
import { builtBin, FED_BIN, runFed } from '../../../../test/helpers/fed-cli.js';
import { isAlive, waitFor } from '../../../../test/helpers/fixture-process.js';
import { typescriptProject } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/** The built agent, run as `fed launch` will run it (`npm test` builds before vitest). */
const AGENT_BIN = builtBin('fed-agent');

interface Federation {
  root: string;
  workspace: string;
  /** A folder whose `fed` runs the built CLI: what the launcher puts on the agent's PATH. */
  bin: string;
}

/** A federation around a small TypeScript codebase, with team `docs` onboarded and its mission assigned. */
async function federationWithMission(subject = 'Document the architecture'): Promise<Federation> {
  const root = typescriptProject(tempDir());
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  await sendSignal(
    openFederation(root),
    { to: 'docs', type: 'directive', subject, body: 'For newcomers to tiny-ts.' },
    { durable: false },
  );
  await runActors(openFederation(root), { once: true, team: 'docs' });
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  // The shim records each pid (exec keeps it), so a test can wait for a `fed event` the agent left running.
  writeFileSync(
    join(bin, 'fed'),
    `#!/bin/sh\necho $$ >> "${join(bin, 'fed.pids')}"\nexec "${process.execPath}" "${FED_BIN}" "$@"\n`,
  );
  chmodSync(join(bin, 'fed'), 0o755);
  return { root, workspace: team.location, bin };
}

/** Write the launch context the launcher would write, for the team's current state. */
async function writeContext(fed: Federation, overrides: Partial<LaunchContext> = {}): Promise<string> {
  const team = getTeam(readRegistry(fed.root), 'docs');
  const view = await viewLifecycle(openFederation(fed.root), team);
  const paths = workspacePaths(fed.workspace);
  const context: LaunchContext = {
    team: 'docs',
    archetype: 'deliverable',
    root: fed.root,
    workspace: fed.workspace,
    codebase: fed.root,
    mission: {
      signalId: view.mission?.signalId ?? 'none',
      subject: view.mission?.subject ?? 'none',
      body: 'For newcomers to tiny-ts.',
    },
    state: view.state,
    deliverable: 'deliverable.md',
    deliverablePath: join(fed.workspace, 'deliverable.md'),
    playbookSkillPath: null,
    learningLogPath: paths.learningLog,
    launchedAt: new Date().toISOString(),
    ...overrides,
  };
  mkdirSync(paths.launch, { recursive: true });
  writeFileSync(paths.launchContext, JSON.stringify(context));
  return paths.launchContext;
}

function startAgent(fed: Federation, contextFile: string, env: NodeJS.ProcessEnv = {}) {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const child = spawn(process.execPath, [AGENT_BIN], {
    cwd: fed.workspace,
    env: {
      ...inherited,
      PATH: `${fed.bin}:${process.env.PATH}`,
      FED_ROOT: fed.root,
      FED_TEAM: 'docs',
      FED_LAUNCH_CONTEXT: contextFile,
      FED_TELEMETRY_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

const lifecycle = (fed: Federation) => viewLifecycle(openFederation(fed.root), getTeam(readRegistry(fed.root), 'docs'));

function pidsOf(fed: Federation): number[] {
  const file = join(fed.bin, 'fed.pids');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

describe('fed-agent, the built-in deliverable agent (built, with fed on its PATH)', () => {
  it('walks the lifecycle to complete with real fed events and writes a deliverable that passes the check', async () => {
    const fed = await federationWithMission();
    const run = await startAgent(fed, await writeContext(fed)).done;
    expect(run, run.stderr).toMatchObject({ code: 0 });
    // Nothing on stderr on this Node: no V8 complaint about a flag its line lacks (src/infra/v8/tiering.ts).
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('docs: preparing → scanning (PLAN_READY)');
    expect(run.stdout).toContain('docs: aggregating → complete (DOCUMENT_WRITTEN)');

    const view = await lifecycle(fed);
    expect(view.state).toBe('complete');
    expect(view.recent.map((l) => l.event)).toEqual([
      'MISSION_ASSIGNED',
      'PLAN_READY',
      'SCAN_COMPLETE',
      'INSIGHTS_READY',
      'DOCUMENT_WRITTEN',
    ]);
    expect(view.recent.every((l) => l.source === 'signal' || l.source === 'event')).toBe(true);
    const check = checkDeliverable(join(fed.workspace, 'deliverable.md'));
    expect(check.violations).toEqual([]);
    expect(check.summary.title).toBe('Architecture of tiny-ts');
    expect(check.summary.diagrams).toHaveLength(1);
    const log = readFileSync(workspacePaths(fed.workspace).learningLog, 'utf8').trim().split('\n');
    expect(log.length).toBeGreaterThan(5);
    for (const line of log) expect(learningEntrySchema.safeParse(JSON.parse(line)).success).toBe(true);
  });

  it('generates no zod parser: jitless is set before any schema is built, in fed-agent and in every fed it runs', async () => {
    const counter = join(packageRoot(), 'test/fixtures/count-zod-parsers.cjs');
    const counts = join(tempDir(), 'compiled-parsers.txt');
    const countingEnv = { NODE_OPTIONS: `--require ${counter}`, FED_TEST_COMPILED_PARSERS: counts };
    // The counter sees the parsers zod generates when it is not jitless.
    const jit = spawnSync(
      process.execPath,
      ['-e', "require('zod').z.object({ a: require('zod').z.string() }).parse({ a: 'x' })"],
      { cwd: packageRoot(), env: { ...process.env, ...countingEnv } },
    );
    expect(jit.status, jit.stderr.toString()).toBe(0);
    expect(readFileSync(counts, 'utf8')).toBe('-e 1\n');
    rmSync(counts);

    const fed = await federationWithMission();
    const run = await startAgent(fed, await writeContext(fed), countingEnv).done;
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const lines = readFileSync(counts, 'utf8').trim().split('\n');
    // fed-agent itself and each `fed event` it ran (four transitions).
    expect(lines.filter((line) => line.startsWith(`${AGENT_BIN} `))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith(`${FED_BIN} `)).length).toBeGreaterThanOrEqual(4);
    expect(lines.filter((line) => !line.endsWith(' 0'))).toEqual([]);
  });

  it('relaunched after a pause in distilling, continues from there', async () => {
    const fed = await federationWithMission();
    const team = getTeam(readRegistry(fed.root), 'docs');
    await applyLifecycleInputs(openFederation(fed.root), team, [
      { source: 'event', event: { type: 'PLAN_READY', sources: ['src'] } },
      { source: 'event', event: { type: 'SCAN_COMPLETE', filesRead: 3 } },
      { source: 'event', event: { type: 'PAUSE' } },
      { source: 'event', event: { type: 'RESUME' } },
    ]);
    expect((await lifecycle(fed)).state).toBe('distilling');
    const run = await startAgent(fed, await writeContext(fed)).done;
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).not.toContain('PLAN_READY');
    expect((await lifecycle(fed)).state).toBe('complete');
    expect(checkDeliverable(join(fed.workspace, 'deliverable.md')).ok).toBe(true);
  });

  it('an empty codebase fails the team with the spec reason and exits 1', async () => {
    const fed = await federationWithMission();
    const empty = tempDir();
    const run = await startAgent(fed, await writeContext(fed, { codebase: empty })).done;
    expect(run.code).toBe(1);
    expect(await lifecycle(fed)).toMatchObject({
      state: 'failed',
      failure: {
        state: 'preparing',
        reason: expect.stringMatching(/^required information cannot be found: the codebase .* has nothing to study/),
      },
    });
  });

  it('a generic mission in the words of the spec ("Survey the codebase", "Read-only study.") completes with the overview', async () => {
    const fed = await federationWithMission('Survey the codebase');
    const mission = { signalId: 'sig-survey', subject: 'Survey the codebase', body: 'Read-only study.' };
    const run = await startAgent(fed, await writeContext(fed, { mission })).done;
    expect(run, run.stderr).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('fed-agent: preparing: an overview document for "Survey the codebase"');
    expect(run.stdout).toContain('docs: aggregating → complete (DOCUMENT_WRITTEN)');
    expect((await lifecycle(fed)).state).toBe('complete');
    const markdown = readFileSync(join(fed.workspace, 'deliverable.md'), 'utf8');
    expect(markdown).toMatch(/^# Getting to know tiny-ts\n/);
    expect(checkDeliverable(join(fed.workspace, 'deliverable.md')).violations).toEqual([]);
  });

  it('a mission about something the codebase does not have fails the team in scanning, saying what was searched', async () => {
    const fed = await federationWithMission();
    const mission = { signalId: 'sig-payment', subject: 'Document the payment gateway', body: '' };
    const run = await startAgent(fed, await writeContext(fed, { mission })).done;
    expect(run.code).toBe(1);
    expect(await lifecycle(fed)).toMatchObject({
      state: 'failed',
      failure: {
        state: 'scanning',
        reason: expect.stringMatching(
          /^required information cannot be found: the mission asks about "Document the payment gateway" \(in "Document the payment gateway"\), but no file mentions most of "payment", "gateway" \("payment", "gateway" appear nowhere\) \(looked for words starting payment…, gateway…\) \(searched the paths, declared names and text of \d+ code and documentation files/,
        ),
      },
    });
    expect(existsSync(join(fed.workspace, 'deliverable.md'))).toBe(false);
  });

  it('launched, an honest failure is the run outcome failed with its reason, never crashed', async () => {
    const fed = await federationWithMission('Document the payment gateway');
    const launch = await runFed(['--root', fed.root, 'launch', '--team', 'docs', '--json'], { timeoutMs: 60_000 });
    expect(launch.code, launch.stderr).toBe(1);
    const result = JSON.parse(launch.stdout) as { outcome: string; reason: string; lastRun: LaunchRun };
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(
      /^required information cannot be found: the mission asks about "Document the payment gateway"/,
    );
    expect(result.lastRun).toMatchObject({
      preset: 'fed-agent',
      outcome: 'failed',
      reason: result.reason,
      exitCode: 1,
    });
    expect((await lifecycle(fed)).failure).toEqual({ state: 'scanning', reason: result.reason });
  });

  it('launched, a document that misses the deliverableSchema is refused and fixed on the fix attempt', async () => {
    // The mission asks only about the engine, so the first draft has no diagram; the schema asks for one.
    const fed = await federationWithMission('Only document the "engine"');
    writeFileSync(
      join(fed.root, 'diagram.schema.json'),
      JSON.stringify({ type: 'object', properties: { diagrams: { type: 'array', minItems: 1 } } }),
    );
    const config = JSON.parse(readFileSync(join(fed.root, 'federate.config.json'), 'utf8')) as object;
    writeFileSync(
      join(fed.root, 'federate.config.json'),
      JSON.stringify({ ...config, deliverableSchema: 'diagram.schema.json' }),
    );
    const launch = await runFed(['--root', fed.root, 'launch', '--team', 'docs', '--json'], { timeoutMs: 60_000 });
    expect(launch.code, launch.stderr).toBe(0);
    const result = JSON.parse(launch.stdout) as { outcome: string; lastRun: LaunchRun; logPath: string };
    expect(result.outcome).toBe('complete');
    expect(result.lastRun).toMatchObject({ preset: 'fed-agent', outcome: 'completed', fixAttempts: 1 });
    const log = readFileSync(result.logPath, 'utf8');
    expect(log).toContain('does not match deliverableSchema');
    expect(log).toMatch(/fix attempt 1 of 2: rewrote .*deliverable\.md with the overview, for 1 violation\(s\)/);
    // It went on from aggregating: the earlier states' events were not sent again.
    expect((await lifecycle(fed)).recent.map((l) => l.event)).toEqual([
      'MISSION_ASSIGNED',
      'PLAN_READY',
      'SCAN_COMPLETE',
      'INSIGHTS_READY',
      'DOCUMENT_WRITTEN',
    ]);
    expect(checkDeliverable(join(fed.workspace, 'deliverable.md')).summary.diagrams.length).toBeGreaterThan(0);
  });

  it('a bad start is refused with exit 2 and a message saying how to run it', async () => {
    const fed = await federationWithMission();
    const run = await startAgent(fed, join(fed.workspace, 'no-such-context.json')).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^fed-agent: cannot read the launch context .*no-such-context\.json \(FED_LAUNCH_CONTEXT\): ENOENT; fed-agent is started by `fed launch --team <team>`/,
    );
    expect((await lifecycle(fed)).state).toBe('preparing');
  });

  it('a V8 tiering it cannot run with is refused with exit 2, before any work', async () => {
    const fed = await federationWithMission();
    const run = await startAgent(fed, await writeContext(fed), { FED_V8_TIERING: 'fast' }).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'fed-agent: FED_V8_TIERING=fast: expected "off" (V8\'s own tiering) or nothing (fed\'s); unset it or set it to off\n',
    );
    expect((await lifecycle(fed)).state).toBe('preparing');
  });

  it('exits at once on SIGTERM: no handler stands in the way', async () => {
    const fed = await federationWithMission();
    const agent = startAgent(fed, await writeContext(fed));
    await new Promise((resolve) => agent.child.stdout.once('data', resolve));
    const sent = Date.now();
    agent.child.kill('SIGTERM');
    const run = await agent.done;
    // Ended by the signal itself: a handler would have exited with a code. The bound is only against a
    // hang (a loaded machine can take a second to reap a process and tell this one).
    expect(run.signal).toBe('SIGTERM');
    expect(Date.now() - sent).toBeLessThan(10_000);
    // A `fed event` it had already started (if any) finishes on its own; wait for it before the temp dir goes away.
    await waitFor(() => pidsOf(fed).every((pid) => !isAlive(pid)), 15_000, 'the fed events the agent started');
    expect(['preparing', 'scanning']).toContain((await lifecycle(fed)).state);
  });
});
