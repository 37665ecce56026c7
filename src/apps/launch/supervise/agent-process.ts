import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, writeSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import type { Server } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { RefusedError } from '../../../core/errors.js';
import { findExecutable, leftOutReason } from '../../../infra/process/find-executable.js';
import { processStartTime } from '../../../infra/fs/process-identity.js';
import { openForAppend } from '../../../infra/fs/open-for-append.js';
import { agentLogHeader } from '../../../core/schema/agent-log.js';
import { LIFELINE_ENV, LIFELINE_FD, LIFELINE_GRACE_ENV } from '../../../infra/process/lifeline.js';
import { receiveListener } from '../../../infra/process/listener-channel.js';
import { watchdogScript, type SpareLaunch, type SpareWatchdogs } from './spare-watchdogs.js';
import type { SandboxWrapper } from '../prepare/sandbox/sandbox.js';
import { endLeftovers, endSandbox, groupMembers, sandboxInit, signalSandbox, type SandboxInit } from './agent-stop.js';

/** How long a stop waits for a graceful exit before SIGKILL, unless the launch says. */
export const DEFAULT_GRACE_MS = 5_000;
/** How much later than its grace the group is killed here, should the watchdog (which kills at the grace) not. */
const WATCHDOG_LATE_MS = 1_000;

/** The longest a stop with `graceMs` of grace takes until the agent is killed (what fencing must leave room for). */
export const stopTakesAtMostMs = (graceMs: number): number => graceMs + WATCHDOG_LATE_MS;

/**
 * One agent process: started from an argument array (never a shell) under the watchdog
 * (`agent-watchdog.ts`, leader of the agent's own process group, which stops the agent if the launcher
 * dies) — or, for an agent that ends itself with its launcher (`endsWithLauncher`), as that group's leader
 * itself, supervised by the launcher alone — optionally inside a sandbox (`wrapper`). Its stdin is fed the
 * given text or closed, its stdout is handed to the launcher as it arrives, its stderr is appended to the
 * team's agent log under a header naming the launch. It is stopped gracefully when asked (SIGTERM to the
 * group, then SIGKILL).
 */
export interface AgentProcessOptions {
  command: readonly string[];
  /** The command as the agent log's header shows it (the run record's, its prompt replaced by the prompt's file); default `command`. */
  shownCommand?: readonly string[];
  /** Where the command was named, for the fix of one that cannot run: `--agent` or its config field (default `agentCommand`). */
  commandFrom?: string;
  /** The sandbox (bwrap and its arguments) for the agent's program once found, put before the command. */
  wrapper?: SandboxWrapper;
  cwd: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** Extra header lines for the agent log (the preset, the transcript path, the sandbox). */
  header?: readonly string[];
  /** Written to stdin, then stdin is closed; null closes it at once. */
  stdin?: string | null;
  onStdout?: (chunk: Buffer) => void;
  /** How long a stop waits for a graceful exit before SIGKILL (default 5 s). */
  graceMs?: number;
  /**
   * The agent ends itself and whatever it started when the launcher is gone — it watches the lifeline
   * (`LIFELINE_ENV` names its descriptor) — as fed's built-in agent does. It then runs without the
   * watchdog (a node process per launch), and what the watchdog would do is done here: a stop signals it
   * (in the sandbox, every process inside), and what it left in its group ends before its exit is passed
   * on. In the sandbox bwrap's --die-with-parent ends everything inside with the launcher, too.
   */
  endsWithLauncher?: boolean;
  /** In a sandbox with a network policy: where the listener its proxy serves goes (src/infra/process/listener-channel.ts). */
  onNetworkListener?: (listener: Server, port: number) => void;
  /** The folder of fed's own commands on the agent's PATH, written by this launch: trusted though in `.fed/`. */
  commandsBin?: string;
  /** Watchdogs started ahead, kept by a launcher of many launches (`fed serve`): one is taken if waiting. */
  watchdogs?: SpareWatchdogs;
}

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The program as it will be executed, or a clear refusal when it cannot be found or run — or is only
 * where a sandboxed agent could have planted it (find-executable.ts): it would run as the user, unsandboxed
 * for a coding team.
 */
export function findProgram(
  file: string,
  {
    cwd,
    env,
    commandsBin,
    commandFrom = 'agentCommand',
  }: Pick<AgentProcessOptions, 'cwd' | 'env' | 'commandsBin' | 'commandFrom'>,
): string {
  const found = findExecutable(file, env, { cwd, trusted: commandsBin });
  if (found.path) return found.path;
  const hint = !file.includes('/')
    ? 'not found on PATH'
    : found.folders.length
      ? 'it is a directory, not an executable'
      : 'no such executable';
  const fix =
    commandFrom === '--agent'
      ? 'install it, or pass another --agent <command>'
      : `install it, or set ${commandFrom} in federate.config.json, or pass --agent <command>`;
  // A path names one candidate: the hint already says it is a directory.
  const reason = leftOutReason({ leftOut: found.leftOut, folders: file.includes('/') ? [] : found.folders });
  throw new RefusedError('AGENT_COMMAND', `cannot start the agent "${file}": ${hint}${reason}; ${fix}`);
}

export class AgentProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<AgentExit>;
  /** Start time of the group leader (/proc/<pid>/stat field 22), recorded so a later launch can recognise an orphan. */
  readonly processStart: string | null;
  private readonly graceMs: number;
  /** How the launcher stops the agent: through the watchdog, or itself (`endsWithLauncher`), sandboxed or not. */
  private readonly supervision: 'watchdog' | 'direct' | 'direct-sandboxed';
  /** A stop was asked for. */
  private stopping = false;
  /** In the sandbox without a watchdog: its init, found once bwrap started it. */
  private readonly init: Promise<SandboxInit | undefined> | undefined;

  private constructor(
    child: ChildProcess,
    exited: Promise<AgentExit>,
    graceMs: number,
    supervision: AgentProcess['supervision'],
    private readonly logFile: string,
  ) {
    this.child = child;
    this.exited = exited;
    this.graceMs = graceMs;
    this.supervision = supervision;
    this.processStart = processStartTime(child.pid!) ?? null;
    if (supervision === 'direct-sandboxed') this.init = sandboxInit(child.pid!, () => this.running());
  }

  get pid(): number {
    return this.child.pid!;
  }

  static async start(options: AgentProcessOptions): Promise<AgentProcess> {
    const [file, ...args] = options.command;
    if (!file) throw new RefusedError('AGENT_COMMAND', 'the agent command is empty');
    const program = findProgram(file, options);
    const sandbox = options.wrapper?.(program, { builtIn: options.endsWithLauncher === true });
    const wrapper = sandbox?.argv;
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    mkdirSync(dirname(options.logFile), { recursive: true });
    // The agent's stderr: never a link the agent planted (it would write the file it points at) nor a
    // FIFO (the open would hang) — openForAppend refuses both.
    const log = openForAppend(options.logFile);
    try {
      const header = [
        `\n${agentLogHeader(new Date())}`,
        `command: ${JSON.stringify(options.shownCommand ?? options.command)}`,
        `cwd: ${options.cwd}`,
        ...(options.header ?? []),
        '',
        '',
      ].join('\n');
      writeSync(log, header);
      const supervision = options.endsWithLauncher ? (wrapper ? 'direct-sandboxed' : 'direct') : 'watchdog';
      // Under the watchdog, a spare one started ahead when the launcher keeps them (it then opens the log).
      // Not with a network policy: that watchdog passes the proxy's listener up (spawned with IPC for it).
      const spare = supervision === 'watchdog' && !options.onNetworkListener ? options.watchdogs?.take() : undefined;
      const child =
        (spare &&
          (await handOver(spare, {
            graceMs,
            sandboxed: wrapper !== undefined,
            file: wrapper?.[0] ?? program,
            args: wrapper ? [...wrapper.slice(1), program, ...args] : args,
            cwd: options.cwd,
            env: options.env,
            log: logIdentity(options.logFile, log),
            stdin: options.stdin != null,
          }))) ||
        (await spawnAgent(
          options,
          supervision,
          graceMs,
          log,
          wrapper !== undefined,
          [...(wrapper ?? []), program, ...args],
          file,
          sandbox?.network,
        ));
      if (options.onNetworkListener) receiveListener(child, options.onNetworkListener);
      if (child.stdin) {
        const stdin = child.stdin as Writable;
        // An agent that exits without reading its prompt must not crash the launcher with EPIPE.
        stdin.on('error', () => undefined);
        stdin.end(options.stdin ?? undefined);
      }
      const stdout = child.stdout as Readable;
      stdout.on('data', (chunk: Buffer) => options.onStdout?.(chunk));
      // Wait for the output to be read to its end too, so the last event of the stream is never missed.
      const drained = new Promise<void>((resolve) => stdout.once('close', resolve));
      let agent: AgentProcess | undefined = undefined;
      // A watchdog in a network of its own says the agent's exit before it passes it on: bwrap, its parent,
      // can pass on a signal only as an exit code (128 + its number).
      let saidExit: AgentExit | undefined;
      if (sandbox?.network) child.on('message', (message: unknown) => (saidExit = watchdogExit(message) ?? saidExit));
      const exited = new Promise<AgentExit>((resolve) =>
        child.once('exit', (code, signal) => {
          // What it left in its group ends first (the watchdog's part, when there is none); then its output
          // is read to the end — but not forever: a background process it left may hold its stdout open.
          void (
            supervision === 'direct'
              ? agent!.endLeftovers()
              : supervision === 'direct-sandboxed'
                ? agent!.endSandbox()
                : Promise.resolve()
          )
            .then(() =>
              Promise.race([Promise.all([drained, disconnected(child)]), sleep(2_000, undefined, { ref: false })]),
            )
            .then(() => {
              stdout.destroy();
              (child.stdio[3] as Readable | null)?.destroy();
              resolve(saidExit ?? (sandbox?.network ? passedOn(code, signal) : { code, signal }));
            });
        }),
      );
      agent = new AgentProcess(child, exited, graceMs, supervision, options.logFile);
      return agent;
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(log);
    }
  }

  /**
   * Ask the agent (and its process group) to stop (SIGTERM); the watchdog kills what has not exited after the
   * grace period — the sandbox included — and exits last. Should the watchdog itself not, the group is
   * killed a moment later. Without a watchdog the same is done here: in the sandbox, every process inside
   * is asked to stop, and its init is killed after the grace period.
   */
  async stop(): Promise<AgentExit> {
    if (this.running()) {
      this.stopping = true;
      const sandboxed = this.supervision === 'direct-sandboxed';
      const running = () => this.running();
      if (sandboxed) void signalSandbox(this.pid, 'SIGTERM', running);
      else this.signalGroup('SIGTERM');
      const timer = setTimeout(
        () => {
          if (sandboxed) void signalSandbox(this.pid, 'SIGKILL', running);
          else this.signalGroup('SIGKILL');
        },
        this.supervision === 'watchdog' ? this.graceMs + WATCHDOG_LATE_MS : this.graceMs,
      );
      try {
        return await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    return this.exited;
  }

  /** Whether the agent's process (the watchdog, bwrap or the agent) still runs: once it exited its pid may be reused. */
  private running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Outside the sandbox, what the agent left in its process group once it exited (a group whose leader is
   * gone keeps its id while a member lives, so no other group can take it meanwhile). In the sandbox its
   * PID namespace ends with its init (endSandbox).
   */
  private endLeftovers(): Promise<void> {
    const members = () => {
      try {
        process.kill(-this.pid, 0);
      } catch (error) {
        // No member left (the usual case): the process table need not be read.
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') return [];
      }
      return groupMembers(this.pid);
    };
    return endLeftovers(members, this.graceMs, this.stopping);
  }

  /** In the sandbox, once bwrap exited: its init gone too, and with it everything inside. */
  private async endSandbox(): Promise<void> {
    const init = await this.init;
    if (init)
      await endSandbox(init, this.graceMs, (pid) => {
        // Said in the agent's log; its exit is passed on all the same.
        const log = openForAppend(this.logFile);
        try {
          writeSync(log, `fed: the sandbox's init (pid ${pid}) outlived SIGKILL; its exit is passed on without it\n`);
        } finally {
          closeSync(log);
        }
      });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // The group is gone already (ESRCH): nothing left to stop.
    }
  }
}

/**
 * Start the agent's process (`command`, bwrap's first when `sandboxed`): under a new watchdog (`supervision`
 * 'watchdog') or the command itself, in
 * its own process group — a Ctrl-C at the terminal reaches fed (which pauses the team and stops the agent
 * in order), not the agent directly; and a stop reaches everything the agent started. Fd 3 is the
 * lifeline the watchdog — or the agent itself — watches; `log` its stderr. With `network` (a sandbox with
 * a network policy) the watchdog runs in a network namespace of its own, listens on the sandbox's ports
 * and hands them up before it starts the sandbox in it (`network.outer`: sandbox-network.ts, networkOfItsOwn).
 */
async function spawnAgent(
  options: AgentProcessOptions,
  supervision: AgentProcess['supervision'],
  graceMs: number,
  log: number,
  sandboxed: boolean,
  command: readonly string[],
  shown: string,
  network: { outer: readonly string[]; ports: readonly number[] } | undefined,
): Promise<ChildProcess> {
  const watchdog = [
    process.execPath,
    watchdogScript(),
    String(graceMs),
    ...(network ? ['--listen', network.ports.join(',')] : []),
    ...(sandboxed ? ['--sandboxed'] : []),
    ...command,
  ];
  const [file, ...args] = supervision === 'watchdog' ? [...(network?.outer ?? []), ...watchdog] : command;
  const child = spawn(file!, args, {
    cwd: options.cwd,
    env:
      supervision === 'watchdog'
        ? options.env
        : { ...options.env, [LIFELINE_ENV]: String(LIFELINE_FD), [LIFELINE_GRACE_ENV]: String(graceMs) },
    stdio: [
      options.stdin == null ? 'ignore' : 'pipe',
      'pipe',
      log,
      'pipe',
      ...(options.onNetworkListener ? ['ipc' as const] : []),
    ],
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(new RefusedError('AGENT_COMMAND', `cannot start the agent "${shown}": ${error.message}`)),
    );
  });
  return child;
}

/** Resolves once `child`'s IPC channel is closed (every message it sent read), at once without one. */
function disconnected(child: ChildProcess): Promise<void> {
  return child.connected ? new Promise((resolve) => child.once('disconnect', () => resolve())) : Promise.resolve();
}

/**
 * The exit bwrap passed on for a watchdog that said none (it was killed itself): a signal's as 128 + its
 * number, told back as that signal.
 */
function passedOn(code: number | null, signal: NodeJS.Signals | null): AgentExit {
  const name = code !== null && code > 128 ? signalName(code - 128) : undefined;
  return name ? { code: null, signal: name } : { code, signal };
}

/** The name of signal `number` on this machine, if it has one. */
function signalName(number: number): NodeJS.Signals | undefined {
  return (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, n]) => n === number)?.[0];
}

/** The agent's exit as the watchdog says it (`{ exit: { code, signal } }`: agent-watchdog.ts), else undefined. */
function watchdogExit(message: unknown): AgentExit | undefined {
  const exit = (message as { exit?: { code?: unknown; signal?: unknown } } | null)?.exit;
  if (!exit) return undefined;
  const code = typeof exit.code === 'number' ? exit.code : null;
  const signal = typeof exit.signal === 'string' ? (exit.signal as NodeJS.Signals) : null;
  return { code, signal };
}

/** Hand the launch to a spare watchdog (spare-watchdogs.ts); undefined if it died meanwhile (start one then). */
async function handOver(spare: ChildProcess, launch: SpareLaunch): Promise<ChildProcess | undefined> {
  const sent = await new Promise<boolean>((resolve) => spare.send(launch, (error) => resolve(!error)));
  if (sent) return spare;
  spare.kill('SIGKILL');
  return undefined;
}

/** The log the launcher opened, named for a spare watchdog to open again: its path and its file's identity. */
function logIdentity(file: string, fd: number): SpareLaunch['log'] {
  const { dev, ino } = fstatSync(fd);
  return { file, dev, ino };
}
