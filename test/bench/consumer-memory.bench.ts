/**
 * A long-running `fed actors run` (the built `dist` command, as a child process) fed 50 000 signals on
 * files, sent in batches while it runs: its RSS sampled after each 10 000 applied. Goal: flat — the RSS
 * after 50 000 at most 1.25× the RSS after 10 000 (the ceiling: the same process once warm). Then Ctrl-C:
 * the time from SIGINT until it has exited, goal ≤ 2 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { fmt, report } from './harness.js';

/** Smaller runs for a quick look: FED_BENCH_CONSUMER_SIGNALS (a multiple of 5 000). */
const SIGNALS = Number(process.env.FED_BENCH_CONSUMER_SIGNALS ?? 50_000);
const STEP = SIGNALS / 5;
const BATCH = 1_000;
const EXIT_GOAL_MS = 2_000;

/** Resident set size of a process, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) / 1024;
}

/** `fed actors run --team docs --json` in `root`; counts the signals it reports applied (one JSON line per batch). */
function startActors(root: string): { child: ChildProcess; applied: () => number } {
  const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
  const child = spawn(process.execPath, [FED_BIN, 'actors', 'run', '--team', 'docs', '--json'], {
    cwd: root,
    env: { ...env, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let applied = 0;
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line) applied += (JSON.parse(line) as { steps: unknown[] }).steps.length;
  });
  return { child, applied: () => applied };
}

async function until(done: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export default async function consumerMemoryBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-consumer-memory-'));
  try {
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' });
    const fed = openFederation(root);
    const { child, applied } = startActors(root);
    const samples: number[] = [];
    const began = performance.now();
    try {
      for (let sent = 0; sent < SIGNALS;) {
        for (let i = 0; i < BATCH; i++, sent++) {
          await sendSignal(
            fed,
            { to: 'docs', type: 'question', subject: `question ${sent}`, body: `body ${sent}` },
            { durable: false },
          );
        }
        await until(() => applied() >= sent, `${sent} signals applied`);
        if (sent % STEP === 0) {
          samples.push(rssMiB(child.pid!));
          process.stdout.write(
            `    ${sent} applied, RSS ${fmt(samples.at(-1)!)} MiB, ${fmt((performance.now() - began) / 1000)} s\n`,
          );
        }
      }
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const interrupted = performance.now();
    child.kill('SIGINT');
    await exited;
    const exitMs = performance.now() - interrupted;

    const first = samples[0]!;
    const last = samples.at(-1)!;
    report({
      name: `fed actors run, RSS after ${SIGNALS} signals / after ${STEP} (${samples.map((s) => fmt(s)).join(' → ')} MiB at each ${STEP})`,
      value: last / first,
      unit: '×',
      ceiling: { name: `RSS after ${STEP}`, value: 1 },
      goal: '≤ 1.25×',
      met: last / first <= 1.25,
    });
    report({
      name: `fed actors run, Ctrl-C after ${SIGNALS} signals → exited`,
      value: exitMs,
      unit: 'ms',
      goal: `≤ ${EXIT_GOAL_MS} ms`,
      met: exitMs <= EXIT_GOAL_MS,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
