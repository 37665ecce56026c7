/**
 * Start-up of the commands agents and coordinators run most, beside a bare `node -e ''` start measured in
 * the same rounds (issue 18): `fed --version` ≤ 1.5×, `fed event` and `fed signal send` ≤ 2×. Wall time of
 * the whole process, as a user waits for it. Each `fed event` is a real transition (a fresh team whose
 * mission was applied, preparing → scanning); each send a real durable delivery. Telemetry is on with no
 * collector listening — the out-of-the-box configuration — so the figures include whatever that costs.
 * The `fed` bin's code cache starts empty (a folder of this run): each command's first round compiles and
 * leaves its cache, the later rounds use it, as an agent's repeated `fed event` does.
 *
 * Issue 31: the same commands, and `fed team show`, must not grow with the federation — ≤ 1.8× in a
 * federation of 1 000 teams and in one with a long history (test/helpers/big-federations.ts says what each holds).
 * There every command is a real one too: a `fed event` in the big federation moves a fresh team
 * preparing → scanning; in the long one, a question arrives (untimed, as the team actor applies it) and
 * `fed event ANSWER_SENT` moves the consultant researching → ready, each reporting to meta. With the long
 * history, `fed team show` is also set beside the feature's own ceiling: a node start that lists the
 * consultant's inbox, what showing its pending signals cannot do without.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyLifecycleInputs, initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { getTeam, readRegistry, workspacePaths } from 'fed/testing';
import { FED_BIN } from '../helpers/fed-cli.js';
import { reportInterleavedRatios } from './harness.js';
import { askQuestion, longHistoryFederation, manyTeamsFederation } from '../helpers/big-federations.js';

const ROUNDS = 11;
/** Rounds in the big federations, whose every round needs a fresh team or a new question. */
const BIG_ROUNDS = 11;
const TEAMS = 1_000;
/** Questions the long-lived consultant has answered: 10 000 transitions in its journal, and as many reports. */
const ANSWERED = 5_000;

function timed(args: readonly string[], env: NodeJS.ProcessEnv = {}): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return elapsed;
}

export default async function startupBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-startup-'));
  initFederation(root, {}, {});
  // Teams for the event runs, each with its mission applied (it waits in preparing for PLAN_READY).
  const teams: string[] = [];
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const team = await onboardTeam(openFederation(root), { domain: `t${i}` });
    const sent = await sendSignal(
      openFederation(root),
      { to: team.domainId, type: 'directive', subject: 'Mission', body: 'Describe it' },
      { durable: false },
    );
    await applyLifecycleInputs(openFederation(root), getTeam(readRegistry(root), team.domainId), [
      { source: 'signal', signal: sent.message },
    ]);
    teams.push(team.domainId);
  }
  const codeCache = join(root, 'code-cache');
  const telemetryOn = {
    FED_ROOT: root,
    FED_CODE_CACHE: codeCache,
    FED_TELEMETRY_ENABLED: 'true',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  };
  const telemetryOff = { FED_ROOT: root, FED_CODE_CACHE: codeCache, FED_TELEMETRY_ENABLED: 'false' };
  let nextTeam = 0;
  let sends = 0;
  const event = (env: NodeJS.ProcessEnv) => () =>
    timed([FED_BIN, 'event', '--team', teams[nextTeam++]!, 'PLAN_READY', '--data', '{"sources":["src"]}'], env);
  const send = (env: NodeJS.ProcessEnv) => () =>
    timed([FED_BIN, 'signal', 'send', '--to', 't0', '--type', 'report', '--subject', `Status ${sends++}`], env);
  await reportInterleavedRatios(
    { name: "node -e ''", run: () => timed(['-e', '']) },
    [
      { name: 'fed --version', run: () => timed([FED_BIN, '--version'], { FED_CODE_CACHE: codeCache }), max: 1.5 },
      { name: 'fed event (telemetry on, no collector)', run: event(telemetryOn), max: 2 },
      { name: 'fed event (telemetry off)', run: event(telemetryOff), max: 2 },
      { name: 'fed signal send (telemetry on, no collector)', run: send(telemetryOn), max: 2 },
      { name: 'fed signal send (telemetry off)', run: send(telemetryOff), max: 2 },
    ],
    ROUNDS,
  );
  await bigFederations(codeCache, root, teams[0]!);
  rmSync(root, { recursive: true, force: true });
}

/** `fed event` and `fed team show` in a small federation (`small`), one of 1 000 teams, and one with a long history. */
async function bigFederations(codeCache: string, small: string, smallTeam: string): Promise<void> {
  const many = await manyTeamsFederation(TEAMS, BIG_ROUNDS + 1);
  const long = await longHistoryFederation(ANSWERED);
  const env = (root: string) => ({ FED_ROOT: root, FED_CODE_CACHE: codeCache, FED_TELEMETRY_ENABLED: 'false' });
  let nextTeam = 0;
  let question = ANSWERED;
  const manyEvent = () =>
    timed(
      [FED_BIN, 'event', '--team', many.ready[nextTeam++]!, 'PLAN_READY', '--data', '{"sources":["src"]}'],
      env(many.root),
    );
  const longEvent = async () => {
    await askQuestion(long.root, long.team, question++);
    return timed([FED_BIN, 'event', '--team', long.team, 'ANSWER_SENT'], env(long.root));
  };
  const show = (root: string, team: string) => () => timed([FED_BIN, 'team', 'show', team], env(root));
  // Once untimed: the code caches of `team show` are made, and the long history's first command settles
  // what the builder's last batch owed (as the first command after a busy consumer does).
  show(small, smallTeam)();
  await longEvent();
  await reportInterleavedRatios(
    { name: "node -e ''", run: () => timed(['-e', '']) },
    [
      { name: `fed event, ${TEAMS} teams`, run: manyEvent, max: 1.8 },
      { name: `fed event, ${ANSWERED} questions answered`, run: longEvent, max: 1.8 },
      { name: 'fed team show, small federation', run: show(small, smallTeam), max: 1.8 },
      { name: `fed team show, ${TEAMS} teams`, run: show(many.root, many.ready[BIG_ROUNDS]!), max: 1.8 },
      { name: `fed team show, ${ANSWERED} questions answered`, run: show(long.root, long.team), max: 1.8 },
    ],
    BIG_ROUNDS,
  );
  // The feature's own ceiling with a long history: showing the pending signals means listing the inbox,
  // 10 000 files (a question and its ack each) never archived — a node start that only lists it.
  const inbox = workspacePaths(getTeam(readRegistry(long.root), long.team).location).inbox;
  await reportInterleavedRatios(
    {
      name: "node listing the consultant's inbox",
      run: () => timed(['-e', `require('node:fs').readdirSync(${JSON.stringify(inbox)})`]),
    },
    [{ name: `fed team show, ${ANSWERED} questions answered`, run: show(long.root, long.team) }],
    BIG_ROUNDS,
  );
  for (const root of [many.root, long.root]) rmSync(root, { recursive: true, force: true });
}
