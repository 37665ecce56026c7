import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { RefusedError } from '../errors.js';

/**
 * One agent process: started from an argument array (never a shell), its stdout and stderr appended to
 * the team's agent log under a header naming the launch, and stopped gracefully when asked (SIGTERM,
 * then SIGKILL after a grace period).
 */
export interface AgentProcessOptions {
  command: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  /** How long a stop waits for a graceful exit before SIGKILL (default 5 s). */
  graceMs?: number;
}

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class AgentProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<AgentExit>;
  private readonly graceMs: number;

  private constructor(child: ChildProcess, exited: Promise<AgentExit>, graceMs: number) {
    this.child = child;
    this.exited = exited;
    this.graceMs = graceMs;
  }

  static async start(options: AgentProcessOptions): Promise<AgentProcess> {
    const [file, ...args] = options.command;
    if (!file) throw new RefusedError('AGENT_COMMAND', 'the agent command is empty');
    mkdirSync(dirname(options.logFile), { recursive: true });
    const log = openSync(options.logFile, 'a');
    try {
      const header = `\n=== fed launch ${new Date().toISOString()} ===\ncommand: ${JSON.stringify(options.command)}\ncwd: ${options.cwd}\n\n`;
      writeSync(log, header);
      // Its own process group: a Ctrl-C at the terminal reaches fed (which pauses the team and stops the
      // agent in order), not the agent directly; and a stop reaches everything the agent started.
      const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', log, log], detached: true });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', (error: NodeJS.ErrnoException) => {
          const hint = error.code === 'ENOENT' ? 'not found on PATH' : error.message;
          reject(new RefusedError('AGENT_COMMAND', `cannot start the agent "${file}": ${hint}; set agentCommand in federate.config.json or pass --agent <command>`));
        });
      });
      const exited = new Promise<AgentExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      return new AgentProcess(child, exited, options.graceMs ?? 5_000);
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(log);
    }
  }

  /** Ask the agent (and its process group) to stop (SIGTERM), and kill it if it has not exited after the grace period. */
  async stop(): Promise<AgentExit> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.signalGroup('SIGTERM');
      const timer = setTimeout(() => this.signalGroup('SIGKILL'), this.graceMs);
      try {
        return await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    return this.exited;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // The group is gone already (ESRCH): nothing left to stop.
    }
  }
}
