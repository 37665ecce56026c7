import { delimiter } from 'node:path';
import type { AgentLimits, FederationConfig } from '../../../core/schema/config.js';
import type { CurrentRun } from '../../../core/schema/launch-run.js';
import type { NetworkRunRecord } from '../../../core/schema/network-policy.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import { workspacePaths } from '../../../core/layout.js';
import { AGENT_INSPECTION_ENV } from '../../../infra/inspect/agent-inspection.js';
import { backendEnvNames } from '../../../adapters/index.js';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import type { Launch } from '../launch.js';
import type { PreparedRun } from '../prepare/prepare-run.js';
import type { AgentPreset, StreamStats, StreamVerdict } from '../presets/agent-preset.js';
import { recordedSessionCostUsd, writeCurrentRun } from '../run-records.js';
import { isBuiltInAgent } from '../builtin-agent.js';
import { AgentBroker } from './agent-broker.js';
import { RunNetwork } from './network/run-network.js';
import { teamEventApplier } from './agent-events.js';
import { AgentProcess, type AgentExit } from './agent-process.js';
import { writeCommandShims } from './command-shims.js';
import { RunStream } from './run-stream.js';

/** Why the launcher stopped the agent itself, when it did. */
export type StopReason =
  | { kind: 'paused' }
  | { kind: 'interrupted' }
  /** The launch may no longer hold the team (LaunchFenced, or the team moved to another host): left as it is. */
  | { kind: 'fenced'; message: string }
  | { kind: 'timeout'; message: string }
  | { kind: 'limit'; outcome: 'max-turns' | 'budget' | 'timeout'; message: string }
  /** The stream said something no retry of the CLI's will mend (a rejected key): StreamStats.hopeless. */
  | { kind: 'hopeless'; verdict: StreamVerdict };

/**
 * The agent of a launch, once started: its process, the stream of its output, the run in progress as
 * recorded (`.fed/launch/agent.json`), and why the launcher stops it, once it decides to — a limit the
 * stream reached, or the supervision's pause, timeout or interruption.
 */
export class RunningAgent {
  stop: StopReason | undefined;
  /** When the run began: a fix attempt (fix-attempts.ts) carries over its first attempt's. */
  startedAt = new Date();
  readonly stream: RunStream;
  private child: AgentProcess | undefined;
  private broker: AgentBroker | undefined;
  /** The sandbox's network policy at work: its proxy and what it saw (network/). */
  private network: RunNetwork | undefined;
  private recordedSession: string | null;
  /** The environment the agent runs with (its HOME: where a CLI keeps its log), for `noticeSilentWait`. */
  private agentEnv: NodeJS.ProcessEnv = {};
  /** When the silence may next be looked into: the CLI's log is read every few seconds at most. */
  private nextSilenceCheck = 0;

  private constructor(
    fed: Federation,
    team: RegistryEntry,
    private readonly prepared: PreparedRun,
    limits: AgentLimits,
    sessionCostBeforeUsd: number | undefined,
  ) {
    const { run } = prepared;
    this.recordedSession = run.command.sessionId;
    this.stream = new RunStream(run.preset, run.transcriptPath, workspacePaths(team.location).agentLog, (stats) => {
      // The session id is recorded the moment it is known: a launcher that dies still leaves it for the resume.
      if (this.child && stats.sessionId && stats.sessionId !== this.recordedSession) {
        this.recordedSession = stats.sessionId;
        writeCurrentRun(fed, team, this.current());
      }
      this.stop ??= limitReached(run.preset, stats, limits);
    });
    this.stream.sessionCostBeforeUsd =
      sessionCostBeforeUsd ?? (run.resumedSessionId ? recordedSessionCostUsd(team.location, run.resumedSessionId) : 0);
  }

  /**
   * Start the agent through its preset: argument array, workspace as cwd, `fed` on its PATH, FED_ROOT /
   * FED_TEAM / FED_LAUNCH_PROMPT / FED_LAUNCH_CONTEXT in its environment, in the sandbox when there is one
   * — with its broker then, which runs its fed commands outside (FED_BROKER / FED_BROKER_TOKEN). With
   * telemetry on, the run's span context too (TRACEPARENT, OTEL_RESOURCE_ATTRIBUTES: run-trace.ts).
   * `sessionCostBeforeUsd`: what the session it resumes had cost (a fix attempt's); by default what the
   * team's recorded runs of that session cost.
   */
  static async start(launch: Launch, prepared: PreparedRun, sessionCostBeforeUsd?: number): Promise<RunningAgent> {
    const { fed, team, options } = launch;
    const { relay, trace } = launch.watch;
    const paths = workspacePaths(team.location);
    // The folders fed writes into while the agent runs: an earlier agent may have left a link there.
    for (const folder of [paths.launch, paths.logs, paths.runTranscripts, paths.launchBin])
      fed.folderForWrite(folder, team);
    // What the CLI reads besides (its MCP configuration): the agent may rewrite it, but only for itself.
    for (const [path, content] of Object.entries(prepared.run.command.files ?? {})) writeFileAtomic(path, content);
    const agent = new RunningAgent(fed, team, prepared, options.config.agent.limits, sessionCostBeforeUsd);
    const { run, files, sandbox } = prepared;
    const root = fed.root;
    const baseEnv = options.env ?? process.env;
    agent.agentEnv = baseEnv;
    // What fed needs to act as the team, whether the agent runs fed itself or its broker does.
    const fedEnv = {
      FED_ROOT: root,
      FED_TEAM: team.domainId,
      ...(relay ? { [AGENT_INSPECTION_ENV]: relay.file } : {}),
    };
    // The built-in agent is fed's own code, and reads the registry, its lifecycle and its inbox through the
    // backend itself (on JetStream it needs the backend's environment); any other agent acts only through fed.
    const builtIn = isBuiltInAgent(run.command.argv, {
      cwd: team.location,
      launchBin: paths.launchBin,
      commandEnv: run.command.env,
    });
    try {
      // The built-in agent reports through the broker even unsandboxed: its launcher applies each event
      // itself, instead of a `fed event` process per event.
      const brokerEnv = { ...baseEnv, ...fedEnv };
      agent.broker =
        sandbox || builtIn
          ? await AgentBroker.start({
              // A sandboxed agent makes no Unix socket: it reaches the broker on a loopback — its own, with a
              // network policy (prepared.network), else the machine's.
              listen: prepared.network ? 'handed' : sandbox ? 'loopback' : { socketPath: paths.brokerSocket },
              root,
              env: brokerEnv,
              applyEvent: teamEventApplier(fed, team.domainId, options.config, brokerEnv),
              runInProcess: options.runInProcess,
            })
          : undefined;
      agent.network = prepared.network && new RunNetwork(prepared.network, agent.broker);
      agent.child = await AgentProcess.start({
        command: run.command.argv,
        shownCommand: run.recordedArgv,
        commandFrom: run.commandFrom,
        wrapper: sandbox?.wrapper,
        cwd: team.location,
        env: {
          ...(agent.broker && !builtIn ? withoutBackendEnv(baseEnv, options.config) : baseEnv),
          ...fedEnv,
          ...trace?.agentEnv(baseEnv),
          FED_LAUNCH_PROMPT: files.promptPath,
          FED_LAUNCH_CONTEXT: files.contextPath,
          PATH: [writeCommandShims(paths.launchBin), baseEnv.PATH].filter(Boolean).join(delimiter),
          ...run.command.env,
          ...agent.broker?.agentEnv(),
          ...agent.network?.env(),
        },
        stdin: run.command.stdin,
        onStdout: (chunk) => agent.stream.write(chunk),
        logFile: paths.agentLog,
        header: [
          `preset: ${run.preset.name}${run.resumedSessionId ? ` (resuming session ${run.resumedSessionId})` : ''}`,
          `transcript: ${run.transcriptPath}`,
          `sandbox: ${sandbox ? `bubblewrap, the federation read-only but ${launch.archetype.readOnlyCodebase ? "the team's workspace" : "the team's worktree and its branch (not the repository's config, hooks or other branches)"}; no credential stores; fed commands through the launcher's broker` : 'none'}`,
        ],
        graceMs: options.graceMs,
        // fed-agent ends itself (and what it started) when its launcher is gone: no watchdog process is needed.
        endsWithLauncher: builtIn,
        onNetworkListener: agent.network?.serve,
        commandsBin: paths.launchBin,
        watchdogs: options.watchdogs,
      });
    } catch (error) {
      agent.network?.close();
      await agent.broker?.close();
      agent.stream.close();
      throw error;
    }
    // The broker serves the agent while it runs: a command still running when it exits is stopped.
    const broker = agent.broker;
    if (broker) void agent.child.exited.then(() => broker.close());
    void agent.child.exited.then(() => agent.network?.close());
    return agent;
  }

  get process(): AgentProcess {
    return this.child!;
  }

  /**
   * The agent has exited and its broker is closed. The broker finishes every event it was applying (the
   * agent's last, say, when a timeout stopped it mid-report), so the lifecycle read next is the one the
   * run left.
   */
  async ended(): Promise<AgentExit> {
    const exit = await this.process.exited;
    await this.broker?.close();
    return exit;
  }

  /**
   * A CLI silent on stdout for its preset's while (`silentWait`) is asked what it waits on; a wait it
   * should not keep (a rate limit's hour) stops the run with that verdict, as an error no retry mends does.
   */
  noticeSilentWait(now = Date.now()): void {
    const wait = this.prepared.run.preset.silentWait;
    if (!wait || this.stop || now - this.stream.lastOutputAt < wait.afterMs || now < this.nextSilenceCheck) return;
    this.nextSilenceCheck = now + SILENCE_CHECK_EVERY_MS;
    const verdict = wait.verdict(this.agentEnv, new Date(this.stream.lastOutputAt), this.stream.stats.sessionId);
    if (verdict) this.stop = { kind: 'hopeless', verdict };
  }

  /** The run in progress, as `.fed/launch/agent.json` records it. */
  current(): CurrentRun {
    const { run, sandbox, stateBefore } = this.prepared;
    return {
      runId: run.runId,
      preset: run.preset.name,
      command: run.recordedArgv,
      pid: this.process.pid,
      processStart: this.process.processStart,
      launcherPid: process.pid,
      sessionId: this.stream.stats.sessionId ?? run.command.sessionId,
      resumedSessionId: run.resumedSessionId,
      stateBefore,
      sandboxed: sandbox !== undefined,
      ...(sandbox?.allows.length ? { sandboxAllows: [...sandbox.allows] } : {}),
      transcriptPath: run.transcriptPath,
      promptPath: run.promptPath,
      startedAt: this.startedAt.toISOString(),
    };
  }

  /** What the sandbox's proxy saw of the run, when a network policy applied. */
  networkRecord(): NetworkRunRecord | undefined {
    return this.network?.record();
  }

  /** Whatever went wrong, no agent is left running unsupervised: stopped, and its stream closed. */
  async stopAndClose(): Promise<void> {
    await this.child?.stop();
    await this.broker?.close();
    this.stream.close();
  }
}

const SILENCE_CHECK_EVERY_MS = 5_000;

/** The environment without what the backends read (NATS URLs, credentials): a brokered agent has no use for them. */
function withoutBackendEnv(env: NodeJS.ProcessEnv, config: FederationConfig): NodeJS.ProcessEnv {
  const kept = { ...env };
  for (const name of backendEnvNames(config)) delete kept[name];
  return kept;
}

/** A limit the CLI does not enforce itself, reached according to its stream, or an error it would retry in vain. */
function limitReached(preset: AgentPreset, stats: StreamStats, limits: AgentLimits): StopReason | undefined {
  if (stats.hopeless) return { kind: 'hopeless', verdict: stats.hopeless };
  if (limits.maxTurns && !preset.nativeLimits.maxTurns && stats.turns !== null && stats.turns >= limits.maxTurns) {
    return {
      kind: 'limit',
      outcome: 'max-turns',
      message: `reached the turn limit (${stats.turns} of ${limits.maxTurns} turns)`,
    };
  }
  if (
    limits.maxCostUsd &&
    !preset.nativeLimits.maxCostUsd &&
    stats.costUsd !== null &&
    stats.costUsd >= limits.maxCostUsd
  ) {
    return {
      kind: 'limit',
      outcome: 'budget',
      message: `reached the cost limit ($${stats.costUsd.toFixed(4)} of $${limits.maxCostUsd})`,
    };
  }
  return undefined;
}
