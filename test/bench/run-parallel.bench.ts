/**
 * `fed run --parallel` with the built-in agent (issue 31, row 9): the built `fed run` on 8 fresh teams,
 * each with its mission waiting, over a 14-file codebase ("Survey the codebase", "Read-only study."),
 * sandboxed where bubblewrap works, as a user runs it. Needs the build (`npm run bench` builds first).
 *
 * - CPU per team of `fed run --parallel 2`: user + system time of every node process of the run (fed run,
 *   each team's fed-agent, anything they start), counted by a preload in each
 *   (test/fixtures/process-usage.cjs), over the 8 teams. Goal ≤ 300 ms. Ceilings, measured in the same
 *   rounds the same way: the agent's own work for the 8 teams in one process with no fed around it
 *   (packages/fed-agent/test/fixtures/bench-agent-work.ts, bundled: the feature's ceiling), and the built fed-agent run once per team
 *   with its events answered by a broker that applies nothing (the design's: every team's agent is a
 *   process of its own).
 * - Wall-clock speed-up of `--parallel 2` over `--parallel 1`, the two interleaved round by round, each
 *   on fresh teams, as a share of the machine's bound measured in the same rounds (row P12 of issue 53):
 *   two bare CPU loops side by side against the same two one after the other, each loop a node process
 *   of its own. Goal: ≥ 0.9 of the bound. Beside it, what bounds it too, from the machine's busy time
 *   during each run (./machine-busy.ts: every process, node or not, with the kernel's work for them):
 *   how many cores each run kept busy on average, and `--parallel 1`'s wall time over half the busy time
 *   of `--parallel 2` — the speed-up if `--parallel 2` had kept both cores busy throughout. The speed-up
 *   is the ratio of the two runs' busy cores times the ratio of their work, so a `--parallel 1` that
 *   already keeps more than one core busy (the agent and the launcher overlap; V8 compiles and collects
 *   on threads of its own) lowers the bound below 2. Tighter still, the same with `--parallel 2`'s start
 *   on one core: until its first agent starts, `fed run` is the only process of the run (the preload
 *   records each process's start), so the rest of its busy time has both cores at most — the most
 *   `--parallel 2` can reach on this machine in that round, which the row's goal is set against too.
 * - The CPU of the `fed run` process itself (the coordinator, which launches every team and applies
 *   every agent's events) per team event applied — a lifecycle journal line — at `--parallel` 1, 2, 4
 *   and 8: flat in N, or more cores would wait on it. Goal: `--parallel 8`'s ≤ 1.2× `--parallel 1`'s.
 * - CPU per team of `fed run --parallel 2` on this bench's Node and on the newest pinned line (Node 26,
 *   test/node-lines), with fed-agent's V8 tiering and with V8's own, interleaved (tieringByNode).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildSync } from 'esbuild';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { encodeFrame, FRAME, FrameReader, packageRoot, readRegistry, TIERING_ENV, workspacePaths } from 'fed/testing';
import { builtBin, FED_BIN } from '../helpers/fed-cli.js';
import { writeLaunchContext } from '../helpers/launch-context.js';
import { processUsageEnv, takeProcessUsage, type ProcessUsage } from '../helpers/process-usage.js';
import { nodeLine, pinnedNodeLines } from '../helpers/node-lines.js';
import { report, reportRoundRatios, summarize } from './harness.js';
import { machineBusyMs } from './machine-busy.js';

const TEAMS = 8;
/** The --parallel figures the coordinator's CPU per team event is measured at. */
const PARALLELS = [1, 2, 4, 8] as const;
/**
 * A bare CPU loop: about 0.7 s of a free core, a run's order (shorter ones drown in the scheduler's
 * noise), in a node process of its own. Native code (OpenSSL's PBKDF2), so its speed is the core's: a
 * JavaScript loop ran 0.5 s or 2.2 s from one process to the next here, as V8 did or did not optimise it
 * while it ran, and the bound read 0.43× or 7.8× from round to round.
 */
const LOOP = "require('node:crypto').pbkdf2Sync('fed', 'bench', 3e6, 32, 'sha256');";
const ROUNDS = Number(process.env.FED_BENCH_RUN_ROUNDS ?? 5);
const MISSION = { subject: 'Survey the codebase', body: 'Read-only study.' };
const AGENT_WORK = join(packageRoot(), 'packages/fed-agent/test/fixtures/bench-agent-work.ts');

/**
 * The ceiling's program as one bundle in `dir`, as the agent's own build bundles the agent: compiled, with
 * the code of fed it runs, so that no compiling of TypeScript is counted as the agent's work.
 */
function bundledAgentWork(dir: string): string {
  const outfile = join(dir, 'bench-agent-work.mjs');
  buildSync({
    entryPoints: [AGENT_WORK],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // The packages it bundles that are CommonJS require Node's modules: an ES module has no require of its
    // own. Under a name of its own: the bundle imports createRequire itself (fed's code does).
    banner: {
      js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
    },
    external: ['tsx', '@statelyai/inspect'],
    logLevel: 'warning',
  });
  return outfile;
}

/** A 14-file TypeScript project: manifest, README, ten modules importing each other, a test, a note. */
function writeCodebase(root: string): void {
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ name: 'small', scripts: { build: 'tsc', test: 'vitest run' } }));
  write('README.md', '# small\n\nA small project.\n');
  for (let i = 0; i < 10; i++)
    write(
      `src/m${i}.ts`,
      `import { v as a } from './m${(i + 1) % 10}.js';\nexport const v = ${i};\nexport function f${i}(x: number) { return x + a; }\n`,
    );
  write('test/m0.test.ts', "import { f0 } from '../src/m0.js';\n");
  write('docs/notes.md', '# Notes\n\nSome words.\n');
}

/** A fresh federation of TEAMS deliverable teams, each with its mission in its inbox. */
async function federation(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-run-'));
  writeCodebase(root);
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (let i = 0; i < TEAMS; i++) {
    await onboardTeam(openFederation(root), { domain: `t${i}` }, { durable: false });
    await sendSignal(openFederation(root), { to: `t${i}`, type: 'directive', ...MISSION }, { durable: false });
  }
  return root;
}

/** Every node process started in the federation `root` (there, or in a team's workspace): its argv and CPU time. */
function usageOf(root: string): ProcessUsage[] {
  const workspaces = readRegistry(root).teams.map((team) => team.location);
  return takeProcessUsage([root, ...workspaces]);
}

/** The team events applied in `root`: the lines of every team's lifecycle journal (a transition or a recorded event). */
function teamEventsOf(root: string): number {
  let lines = 0;
  for (const team of readRegistry(root).teams) {
    const journal = readFileSync(workspacePaths(team.location).journal, 'utf8');
    lines += journal.split('\n').filter(Boolean).length;
  }
  return lines;
}

interface Measured {
  wallMs: number;
  /** The CPU of its node processes (the usage preload). */
  cpuMs: number;
  /** The CPU of the process `measured` started itself (for `fed run`, the coordinator). */
  ownCpuMs: number;
  /** How long it ran before the first node process it started (for `fed run`, the first agent) began. */
  aloneMs: number;
  /** The machine's busy time while it ran (./machine-busy.ts), undefined where that cannot be read. */
  busyMs: number | undefined;
}

/** Runs `args` under `node` in the federation `cwd` with the usage preload: its wall time, and the CPU of its processes. */
async function measured(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  node = process.execPath,
): Promise<Measured> {
  const busyBefore = machineBusyMs();
  const startedAt = Date.now();
  const started = performance.now();
  const child = spawn(node, args, {
    cwd,
    env: {
      ...process.env,
      ...processUsageEnv,
      FED_TELEMETRY_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - started;
  const busyAfter = machineBusyMs();
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${output}`);
  const usage = usageOf(cwd);
  const cpuMs = usage.reduce((sum, process) => sum + process.cpuMs, 0);
  const own = (process: ProcessUsage) => process.argv.join('\0') === args.join('\0');
  const ownCpuMs = usage.find(own)?.cpuMs ?? Number.NaN;
  const childStarts = usage.filter((process) => !own(process)).map((process) => process.startedAt);
  const aloneMs = childStarts.length ? Math.min(...childStarts) - startedAt : wallMs;
  const busyMs = busyBefore === undefined || busyAfter === undefined ? undefined : busyAfter - busyBefore;
  return { wallMs, cpuMs, ownCpuMs, aloneMs, busyMs };
}

/** A broker that answers every event (or command) with success and applies nothing: fed-agent with no fed around it. */
async function nullBroker(socketPath: string): Promise<Server> {
  const server = createServer((socket) => {
    const reader = new FrameReader();
    socket.on('data', (chunk: Buffer) => {
      if (reader.push(chunk).some((frame) => frame.type === FRAME.EVENT || frame.type === FRAME.REQUEST))
        socket.end(encodeFrame(FRAME.EXIT, JSON.stringify({ code: 0 })));
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

/** A run of `fed run`, and the team events it applied. */
interface MeasuredRun extends Measured {
  teamEvents: number;
}

/** `fed run --parallel <n>` on fresh teams, on `node` (its agents too) with `env`. */
async function fedRun(parallel: number, node = process.execPath, env: NodeJS.ProcessEnv = {}): Promise<MeasuredRun> {
  const root = await federation();
  try {
    const run = await measured([FED_BIN, 'run', '--parallel', String(parallel)], root, env, node);
    if (deliverablesWritten(root) !== TEAMS)
      throw new Error(`fed run --parallel ${parallel} did not complete every team`);
    return { ...run, teamEvents: teamEventsOf(root) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The wall time (ms) of `count` bare CPU loops side by side, each a node process of its own, until the last ends. */
async function bareLoops(count: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(process.execPath, ['-e', LOOP], { stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      if (code !== 0) throw new Error(`a bare CPU loop exited ${code}`);
    }),
  );
  return performance.now() - started;
}

/** How many teams wrote their deliverable. */
function deliverablesWritten(root: string): number {
  let written = 0;
  for (const team of readRegistry(root).teams) {
    try {
      readFileSync(join(team.location, 'deliverable.md'));
      written++;
    } catch {
      // not written
    }
  }
  return written;
}

/** Launch contexts for fresh teams with their missions applied, as fed launch writes them. */
async function launchContexts(root: string): Promise<string[]> {
  await runActors(openFederation(root), { once: true });
  const files: string[] = [];
  for (const team of readRegistry(root).teams) {
    files.push(await writeLaunchContext(root, team.domainId, MISSION));
  }
  return files;
}

/** A Node to measure fed-agent's tiering on: its version and executable. */
interface NodeUnderTest {
  version: string;
  binary: string;
}

/** The Nodes the tiering is measured on: this bench's own, and the newest pinned line (installed if need be). */
function nodesUnderTest(): NodeUnderTest[] {
  const own = { version: process.version, binary: process.execPath };
  const newest = Math.max(...pinnedNodeLines().keys());
  try {
    const line = nodeLine(newest);
    return line.version === process.version.slice(1)
      ? [own]
      : [own, { version: `v${line.version}`, binary: line.binary }];
  } catch (error) {
    process.stdout.write(
      `  (Node ${newest} cannot be had here, so the tiering is measured on ${process.version} only: ${(error as Error).message})\n`,
    );
    return [own];
  }
}

/**
 * The CPU per team of `fed run --parallel 2` on each Node — the whole process tree, and the coordinator's
 * own — with fed's V8 tiering (fed-agent's and the launcher's) and with V8's own (FED_V8_TIERING=off;
 * src/infra/v8/tiering.ts), the four interleaved round by round. Each runs with its own code caches: the
 * agent's made first by the build's training run, the launcher's by its first run (V8 rejects a cache made
 * under other flags). fed keeps its tiering on a line only where it wins: the ratios' goal.
 */
async function tieringByNode(): Promise<void> {
  const nodes = nodesUnderTest();
  const tierings = [
    { name: "fed's V8 tiering", env: {} },
    { name: "V8's own tiering", env: { [TIERING_ENV]: 'off' } },
  ];
  const { NODE_OPTIONS: _nodeOptions, ...trainingEnv } = process.env;
  for (const node of nodes)
    for (const tiering of tierings) {
      const args = tiering.env[TIERING_ENV] ? ['--tiering', 'off'] : [];
      const made = spawnSync(
        node.binary,
        ['--import', 'tsx', join(packageRoot(), 'packages/fed-agent/scripts/code-cache.ts'), ...args],
        {
          env: trainingEnv,
          stdio: 'inherit',
        },
      );
      if (made.status !== 0) throw new Error(`the training run on Node ${node.version} failed (exit ${made.status})`);
    }
  // A first run of each leaves the launcher's code cache for its tiering: not measured.
  for (const node of nodes) for (const tiering of tierings) await fedRun(2, node.binary, tiering.env);
  const cpu = nodes.map(() => tierings.map(() => [] as number[]));
  const coordinatorCpu = nodes.map(() => tierings.map(() => [] as number[]));
  for (let round = 0; round < ROUNDS; round++)
    for (const [n, node] of nodes.entries())
      for (const [t, tiering] of tierings.entries()) {
        const run = await fedRun(2, node.binary, tiering.env);
        cpu[n]![t]!.push(run.cpuMs / TEAMS);
        coordinatorCpu[n]![t]!.push(run.ownCpuMs / TEAMS);
      }
  for (const [n, node] of nodes.entries())
    for (const [what, values] of [
      ['CPU per team (process tree)', cpu[n]!],
      ["the coordinator's own CPU per team", coordinatorCpu[n]!],
    ] as const) {
      for (const [t, tiering] of tierings.entries()) {
        const s = summarize(values[t]!);
        report({
          name: `fed run --parallel 2, ${what}, ${tiering.name}`,
          value: s.median,
          unit: 'ms',
          spread: s,
          rounds: ROUNDS,
          node: node.version,
        });
      }
      const [tuned, own] = values;
      reportRoundRatios(
        `fed run --parallel 2, ${what}: fed's V8 tiering / V8's own`,
        tuned!.map((value, i) => value / own![i]!),
        { text: '< 1× (kept where it wins)', met: (median) => median < 1 },
        node.version,
      );
    }
}

export default async function runParallelBench(): Promise<void> {
  const ceilingRoot = await federation();
  const socketPath = join(ceilingRoot, 'null-broker.sock');
  const broker = await nullBroker(socketPath);
  const bin = mkdtempSync(join(tmpdir(), 'fed-bench-bin-'));
  try {
    const contexts = await launchContexts(ceilingRoot);
    const agentWork = bundledAgentWork(bin);
    // fed on its PATH, as fed launch gives it (an agent that ran fed would find it; this one asks the broker).
    writeFileSync(join(bin, 'fed'), `#!/bin/sh\nexec "${process.execPath}" "${FED_BIN}" "$@"\n`, { mode: 0o755 });
    const agentProcess = (context: string) =>
      measured([builtBin('fed-agent')], ceilingRoot, {
        PATH: `${bin}:${process.env.PATH}`,
        FED_LAUNCH_CONTEXT: context,
        FED_BROKER: socketPath,
        FED_BROKER_TOKEN: 'none',
      });
    const cpu = { run: [] as number[], oneProcess: [] as number[], processPerTeam: [] as number[] };
    const speedups: number[] = [];
    // Cores kept busy on average by each run, and the most two cores could give: --parallel 1's wall time
    // over half the machine's busy time during --parallel 2.
    const busyCores = { 1: [] as number[], 2: [] as number[] };
    const busyPerTeam: number[] = [];
    const bounds: number[] = [];
    // The same with --parallel 2's start, before its first agent, on one core; and that start.
    const startBounds: number[] = [];
    const alone: number[] = [];
    // The machine's bound, two bare CPU loops side by side against one after the other, and the
    // coordinator's CPU per team event at each --parallel.
    const loopBounds: number[] = [];
    const coordinatorPerEvent = new Map<number, number[]>(PARALLELS.map((n) => [n, []]));
    const perEvent = (run: MeasuredRun) => run.ownCpuMs / run.teamEvents;
    let machineBusy = true;
    for (let round = 0; round < ROUNDS; round++) {
      const oneLoop = await bareLoops(1);
      loopBounds.push((2 * oneLoop) / (await bareLoops(2)));
      const one = await fedRun(1);
      cpu.oneProcess.push((await measured([agentWork, ...contexts], ceilingRoot)).cpuMs / TEAMS);
      const two = await fedRun(2);
      let perTeam = 0;
      for (const context of contexts) perTeam += (await agentProcess(context)).cpuMs;
      cpu.processPerTeam.push(perTeam / TEAMS);
      cpu.run.push(two.cpuMs / TEAMS);
      speedups.push(one.wallMs / two.wallMs);
      coordinatorPerEvent.get(1)!.push(perEvent(one));
      coordinatorPerEvent.get(2)!.push(perEvent(two));
      for (const parallel of PARALLELS.filter((n) => n > 2))
        coordinatorPerEvent.get(parallel)!.push(perEvent(await fedRun(parallel)));
      if (one.busyMs === undefined || two.busyMs === undefined) machineBusy = false;
      else {
        busyCores[1].push(one.busyMs / one.wallMs);
        busyCores[2].push(two.busyMs / two.wallMs);
        bounds.push(one.wallMs / (two.busyMs / 2));
        alone.push(two.aloneMs);
        startBounds.push(one.wallMs / (two.aloneMs + (two.busyMs - two.aloneMs) / 2));
        busyPerTeam.push(two.busyMs / TEAMS);
      }
    }
    const ceilingOne = summarize(cpu.oneProcess);
    const ceilingPerTeam = summarize(cpu.processPerTeam);
    report({
      name: 'agent work, 8 teams in one process (feature ceiling), CPU per team',
      value: ceilingOne.median,
      unit: 'ms',
      spread: ceilingOne,
      rounds: ROUNDS,
    });
    report({
      name: 'fed-agent, a process per team, events applied by nothing (design ceiling), CPU per team',
      value: ceilingPerTeam.median,
      unit: 'ms',
      spread: ceilingPerTeam,
      rounds: ROUNDS,
    });
    const run = summarize(cpu.run);
    report({
      name: `fed run --parallel 2, ${TEAMS} teams of 14 files, CPU per team (process tree)`,
      value: run.median,
      unit: 'ms',
      spread: run,
      rounds: ROUNDS,
      ceiling: { name: 'fed-agent per team with nothing around it', value: ceilingPerTeam.median },
      goal: '≤ 300 ms',
      met: run.median <= 300,
    });
    reportRoundRatios(
      `fed run --parallel 2 / agent work in one process, CPU`,
      cpu.run.map((value, i) => value / cpu.oneProcess[i]!),
    );
    reportRoundRatios(
      `fed run --parallel 2 / fed-agent per team with nothing around it, CPU`,
      cpu.run.map((value, i) => value / cpu.processPerTeam[i]!),
    );
    if (machineBusy) {
      // The CPU goal's figure counts node processes; this one every process the run started, and anything else that ran.
      const perTeam = summarize(busyPerTeam);
      report({
        name: `fed run --parallel 2, the machine's busy time per team (every process: bubblewrap, sh, the kernel's work)`,
        value: perTeam.median,
        unit: 'ms',
        spread: perTeam,
        rounds: ROUNDS,
      });
      for (const [parallel, cores] of Object.entries(busyCores)) {
        const s = summarize(cores);
        report({
          name: `fed run --parallel ${parallel}, cores busy on average (machine's busy time / wall time)`,
          value: s.median,
          unit: 'cores',
          spread: s,
          rounds: ROUNDS,
        });
      }
      reportRoundRatios(
        `fed run --parallel 2 over --parallel 1: the bound on 2 cores (--parallel 1's wall time / half the machine's busy time during --parallel 2)`,
        bounds,
      );
      const start = summarize(alone);
      report({
        name: `fed run --parallel 2, its start: the run's only process until its first agent starts`,
        value: start.median,
        unit: 'ms',
        spread: start,
        rounds: ROUNDS,
      });
      reportRoundRatios(
        `fed run --parallel 2 over --parallel 1: the bound on 2 cores with that start on one (--parallel 1's wall time / (the start + half the rest of the busy time))`,
        startBounds,
      );
    } else
      process.stdout.write('  (no /proc/stat here: the cores kept busy and the bound they set are not measured)\n');
    reportRoundRatios(`fed run --parallel 2 over --parallel 1, wall-clock speed-up (${TEAMS} teams)`, speedups);
    reportRoundRatios(
      `the machine's bound: two bare CPU loops (node processes) side by side over one after the other`,
      loopBounds,
    );
    reportRoundRatios(
      `fed run --parallel 2 over --parallel 1, speed-up as a share of the machine's bound (round by round)`,
      speedups.map((speedup, i) => speedup / loopBounds[i]!),
      { text: '≥ 0.9', met: (median) => median >= 0.9 },
    );
    if (machineBusy)
      reportRoundRatios(
        `the most --parallel 2 can reach here (the bound with its start on one core), as a share of the machine's bound`,
        startBounds.map((bound, i) => bound / loopBounds[i]!),
      );
    for (const [parallel, values] of coordinatorPerEvent) {
      const s = summarize(values);
      report({
        name: `fed run --parallel ${parallel}, the coordinator's own CPU per team event applied`,
        value: s.median,
        unit: 'ms',
        spread: s,
        rounds: ROUNDS,
      });
    }
    const most = Math.max(...PARALLELS);
    reportRoundRatios(
      `fed run, the coordinator's CPU per team event: --parallel ${most} over --parallel 1 (flat in N)`,
      coordinatorPerEvent.get(most)!.map((value, i) => value / coordinatorPerEvent.get(1)![i]!),
      { text: '≤ 1.2×', met: (median) => median <= 1.2 },
    );
  } finally {
    broker.close();
    rmSync(ceilingRoot, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  }
  await tieringByNode();
}
