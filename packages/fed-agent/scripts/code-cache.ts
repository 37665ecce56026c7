/**
 * `node --import tsx scripts/code-cache.ts [--tiering off]`: the V8 code cache of the fed-agent bundle
 * (src/agent-script.ts), made from a training run: in a small federation whose codebase is a copy of
 * fed's own machines/ folder, the built `fed launch` of the fed beside this package (fed-agent is built in
 * fed's repository, packages/fed-agent) runs fed-agent for a deliverable team as it runs any team's
 * agent, and fed-agent leaves the code it compiled (CODE_CACHE_OUT_ENV, read by src/bin.ts) under the
 * name it reads it by — for this Node, and for the V8 tiering it runs with (fed/v8-tiering;
 * `--tiering off` makes the cache of V8's own tiering, which the benchmark compares with fed's). The cache
 * goes to dist/. A cache of what a mission runs is a third the size of one of every function of the
 * bundle, and every fed-agent start reads it whole. Run by scripts/bundle.mjs after the bundles; without
 * NODE_OPTIONS, whose V8 flags would make the cache one fed-agent rejects.
 *
 * The cache is only an optimisation: when the training run fails, the build says so and makes none
 * (fed-agent then compiles as it runs).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CODE_CACHE_OUT_ENV } from '../src/agent-script.js';
import { TIERING_ENV } from 'fed/v8-tiering';

/** What the training reads of fed's package.json: where its command is. */
interface Manifest {
  bin: { fed: string };
}

const { values } = parseArgs({ options: { tiering: { type: 'string' } } });
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const fedRoot = join(packageDir, '../..');
const fedBin = join(fedRoot, (JSON.parse(readFileSync(join(fedRoot, 'package.json'), 'utf8')) as Manifest).bin.fed);
const root = mkdtempSync(join(tmpdir(), 'fed-agent-training-'));
// The builder's own fed settings stay out (a build run by an agent has FED_BROKER, FED_TEAM…; a NATS
// URL would send the training to another backend): the training federation is one of its own.
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(FED|OTEL)_/.test(name))),
  FED_ROOT: root,
  FED_TELEMETRY_ENABLED: 'false',
  // The CLI's own code cache for these commands stays in the training folder.
  FED_CODE_CACHE: join(root, '.code-cache'),
  ...(values.tiering !== undefined && { [TIERING_ENV]: values.tiering }),
};

/** `fed <args>` in the training federation; its stdout. */
function fed(args: string[], extraEnv: NodeJS.ProcessEnv = {}): string {
  const run = spawnSync(process.execPath, [fedBin, ...args], {
    cwd: root,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`fed ${args.join(' ')} exited ${run.status}: ${run.stderr}${run.stdout}`);
  return run.stdout;
}

try {
  cpSync(join(fedRoot, 'machines'), join(root, 'machines'), { recursive: true });
  fed(['init']);
  fed(['team', 'onboard', 'machines']);
  fed(['signal', 'send', '--to', 'machines', '--type', 'directive', '--subject', 'Document the lifecycles']);
  const { location } = JSON.parse(fed(['team', 'show', 'machines', '--json'])) as { location: string };
  // Written in the team's workspace: a sandboxed agent can write nowhere else.
  const trained = join(location, 'code-cache');
  mkdirSync(trained);
  fed(['launch', '--team', 'machines'], { [CODE_CACHE_OUT_ENV]: trained });
  const made = readdirSync(trained);
  if (made.length !== 1) throw new Error(`fed-agent left ${made.length} code caches, not one: ${made.join(', ')}`);
  copyFileSync(join(trained, made[0]!), join(packageDir, 'dist', made[0]!));
} catch (error) {
  console.warn(
    `warning: fed-agent's code cache was not made (the training run failed: ${(error as Error).message.trim()}); fed-agent will compile its bundle as it runs`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
