import { writeFileAtomicAsync } from '../../../infra/fs/atomic-write.js';
import { journalQuietly } from '../../../engine/federation/federation-journal.js';
import { pushWarning, type Launch } from '../launch.js';
import type { PreparedRun } from '../prepare/prepare-run.js';
import { writeCurrentRun } from '../run-records.js';
import { RunTrace } from '../run-trace.js';
import { clearRefusedCompletion } from './refused-completion.js';
import { RunningAgent } from './running-agent.js';

/**
 * The agent started for the prepared run: no refused completion of an earlier launch left on record, the
 * run's span begun (the agent gets its trace context), and the agent's process up (RunningAgent.start).
 * A command that cannot be started refuses the launch, which has not left `preparing` yet.
 */
export async function startAgent(launch: Launch, prepared: PreparedRun): Promise<RunningAgent> {
  const { fed, team, options, watch } = launch;
  const { run } = prepared;
  clearRefusedCompletion(fed, team);
  watch.trace = await RunTrace.start({
    team: team.domainId,
    runId: run.runId,
    preset: run.preset.name,
    model: options.config.agent.model ?? null,
    sessionId: run.command.sessionId ?? run.resumedSessionId,
    env: options.env ?? process.env,
    workflow: options.workflow,
  });
  watch.running = true;
  return RunningAgent.start(launch, prepared);
}

/**
 * The agent runs: the run in progress recorded (`.fed/launch/agent.json`, the intent a later command
 * finishes the run from should this launcher die) and `launch-started` journaled.
 */
export async function recordRunStarted(launch: Launch, prepared: PreparedRun, agent: RunningAgent): Promise<void> {
  await writeRunRecord(launch, prepared, agent);
  pushWarning(
    launch.warnings,
    await journalQuietly(launch.backend, {
      kind: 'launch-started',
      team: launch.team.domainId,
      runId: prepared.run.runId,
      stateBefore: prepared.stateBefore,
    }),
  );
}

/**
 * The agent of a fix attempt (fix-attempts.ts) in place of the last attempt's (exited: whatever it left
 * is stopped and closed), started for its run (prepare/prepare-fix.ts): one run with the attempts before
 * it — the cost of the session it resumes carried over, its start time the first attempt's — and recorded
 * as the run in progress.
 */
export async function restartAgent(launch: Launch, prepared: PreparedRun, last: RunningAgent): Promise<RunningAgent> {
  await last.stopAndClose();
  launch.watch.running = true;
  const agent = await RunningAgent.start(
    launch,
    prepared,
    // The session it resumes has cost what it had when the last attempt began, and that attempt.
    last.stream.sessionCostBeforeUsd + (last.stream.stats.costUsd ?? 0),
  );
  // The attempts are one run: it started when the first did.
  agent.startedAt = last.startedAt;
  await writeRunRecord(launch, prepared, agent);
  return agent;
}

/**
 * The run's prompt, kept once beside its transcript, then the run in progress, which names that file
 * instead of repeating it. The agent never reads the copy (its prompt comes by argument, stdin or the
 * launch prompt file), so it is written once the agent is starting, not before: its fsyncs on the thread pool.
 */
async function writeRunRecord(launch: Launch, prepared: PreparedRun, agent: RunningAgent): Promise<void> {
  await writeFileAtomicAsync(prepared.run.promptPath, prepared.run.prompt);
  writeCurrentRun(launch.fed, launch.team, agent.current());
}
