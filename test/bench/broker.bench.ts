/**
 * A sandboxed agent's fed commands through its launcher's broker (issue 48 item 6): the agent's `fed`
 * (the bin, which with $FED_BROKER set only forwards the command over the socket) and the broker running
 * the command in the launcher's own process (runInProcess: the CLI's runCli), beside the same command
 * run directly by the built `fed` in the same rounds, interleaved. Goal: ≤ 1.2× the direct command, for
 * `fed event` (a real transition each time: a directive noted in the team's lifecycle) and `fed signal
 * send` (a real durable delivery to meta). Wall time of the agent's process, as the agent waits for it.
 * The broker lives in this process, as it lives in the launcher; the sandbox itself is left out (bwrap
 * only wraps the agent, not its commands' path).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentBroker, runCli, teamEventApplier, workspacePaths } from 'fed/testing';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { reportInterleavedRatios } from './harness.js';

const ROUNDS = 11;

export default async function bench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-broker-'));
  const { FED_BROKER: _b, FED_BROKER_TOKEN: _t, FED_ROOT: _r, FED_TEAM: _m, ...inherited } = process.env;
  const env = { ...inherited, FED_ROOT: root, FED_TEAM: 'docs', FED_TELEMETRY_ENABLED: 'false' };
  let broker: AgentBroker | undefined;
  try {
    initFederation(root, {}, {});
    const docs = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Document the project' });
    const fed = openFederation(root, { env });
    broker = await AgentBroker.start({
      listen: { socketPath: workspacePaths(docs.location).brokerSocket },
      root,
      env,
      applyEvent: teamEventApplier(fed, 'docs', fed.config, env),
      runInProcess: runCli,
    });
    const agentEnv = { ...env, ...broker.agentEnv() };
    let n = 0;
    // Spawned without blocking: the broker answers in this very process, as it does in the launcher.
    const timed = (args: () => string[], through: NodeJS.ProcessEnv) => async () => {
      const argv = args();
      const started = performance.now();
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [FED_BIN, ...argv], { cwd: docs.location, env: through });
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.stdout.resume();
        child.on('close', (exit) => resolve({ code: exit, stderr: err }));
      });
      const took = performance.now() - started;
      if (code !== 0) throw new Error(`fed ${argv.join(' ')} exited ${code}: ${stderr}`);
      return took;
    };
    const event = () => [
      'event',
      'DIRECTIVE_RECEIVED',
      '--data',
      JSON.stringify({ signalId: `bench-${++n}`, subject: `directive ${n}` }),
    ];
    const send = () => ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', `report ${++n}`];
    // Each command's code cache made once, before any timing.
    for (const args of [event, send]) for (const through of [env, agentEnv]) await timed(args, through)();
    for (const [name, args] of [
      ['fed event', event],
      ['fed signal send', send],
    ] as const)
      await reportInterleavedRatios(
        { name: `${name}, direct`, run: timed(args, env) },
        [{ name: `${name}, an agent's through the broker`, run: timed(args, agentEnv), max: 1.2 }],
        ROUNDS,
      );
  } finally {
    await broker?.close();
    rmSync(root, { recursive: true, force: true });
  }
}
