import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../../infra/package-info.js';

/** agent-watchdog.ts as the build bundles it (scripts/bundle.mjs): one file to load before the agent starts. */
export const watchdogScript = () => join(packageRoot(), 'dist/bin/agent-watchdog.cjs');

/** A launch handed to a spare watchdog (agent-watchdog.ts `--spare`), as one IPC message. */
export interface SpareLaunch {
  graceMs: number;
  /** The program is bwrap, `args` its arguments then the agent's. */
  sandboxed: boolean;
  file: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The agent's log, its stderr, opened by the watchdog: the file the launcher wrote its header to (device
   * and inode, so a file swapped in between is refused); absent when the watchdog's stderr is the log.
   */
  log?: { file: string; dev: number; ino: number };
  /** Whether the agent reads the launcher's stdin (the watchdog's); else it gets none (/dev/null). */
  stdin: boolean;
}

/**
 * Watchdogs started ahead of the launches that need them, for a launcher that starts many (`fed serve`):
 * a dispatch then takes a node process that is running already instead of waiting for one to
 * start before the agent's own (≈ 0.1–0.3 s on two busy cores). One spare at a time; a second launch at
 * the same moment starts its watchdog as before (take() gives nothing), as does a launch with a network
 * policy (its watchdog keeps an IPC channel to pass the sandbox's proxy listener up).
 *
 * A spare is what agent-process.ts would spawn, with the same descriptors — the agent's stdin and stdout
 * pipes, the lifeline on fd 3 — in its own process group, plus an IPC channel its launch comes by. It
 * holds no agent until then, so it is safe to leave: a spare whose launcher dies exits (its lifeline);
 * close() ends the one waiting. Its environment is empty (the agent's comes with the launch), so no
 * secret of the launcher's reaches a process the agent could read.
 */
export class SpareWatchdogs {
  private spare: ChildProcess | undefined;
  private closed = false;

  constructor() {
    this.refill();
  }

  /** The spare, if one is running and waiting; another is started for the next launch. */
  take(): ChildProcess | undefined {
    const spare = this.spare;
    this.spare = undefined;
    if (!this.closed) setImmediate(() => this.refill());
    return spare && spare.exitCode === null && spare.signalCode === null && spare.connected ? spare : undefined;
  }

  /** Start no more, and end the one waiting. */
  close(): void {
    this.closed = true;
    this.spare?.kill('SIGKILL');
    this.spare = undefined;
  }

  private refill(): void {
    if (this.closed || this.spare) return;
    let spare: ChildProcess;
    try {
      // Its stderr goes nowhere: once it has a launch it writes to the agent's log, and it must not hold
      // the server's stderr open while it stops an agent after the server is gone.
      spare = spawn(process.execPath, [watchdogScript(), '--spare'], {
        cwd: '/',
        env: {},
        stdio: ['pipe', 'pipe', 'ignore', 'pipe', 'ipc'],
        detached: true,
      });
    } catch {
      // No spare (out of memory, processes): each launch starts its own watchdog, as without one.
      return;
    }
    // A spare that could not start, or died waiting, is replaced at the next take.
    spare.on('error', () => undefined);
    spare.once('exit', () => {
      if (this.spare === spare) this.spare = undefined;
    });
    this.spare = spare;
  }
}
