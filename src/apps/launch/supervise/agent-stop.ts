import { setTimeout as sleep } from 'node:timers/promises';
import { processIsAlive, processStartTime } from '../../../infra/fs/process-identity.js';
import { childrenOf, descendantsOf, processTable } from '../../../infra/process/process-tree.js';

/**
 * How an agent is stopped, by whichever supervises it: the watchdog process (agent-watchdog.ts) or the
 * launcher itself, for an agent that ends with its launcher (agent-process.ts).
 */

/** Sends `name` to each of `pids`; one gone meanwhile is skipped. */
export function signalEach(pids: readonly number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone meanwhile
    }
  }
}

/** The live members of process group `group`, but `except`. */
export function groupMembers(group: number, except?: number): number[] {
  return processTable()
    .filter((entry) => entry.group === group && entry.pid !== except)
    .map((entry) => entry.pid);
}

/** How long a stop waits for bwrap to start the sandbox's init, when it arrives before. */
const INIT_WAIT_MS = 2_000;

/**
 * Signals a running sandbox (bwrap, pid `bwrap`, while `running()`) as a stop does. bwrap itself is never
 * signalled once its child — the sandbox's init, pid 1 of its namespace, which passes the agent's exit on
 * — exists: bwrap would die, and an init that had not yet tied itself to bwrap would carry on and run the
 * command as an orphan, its exit reported first. SIGTERM goes to every process inside (a chance to save
 * their session); with nothing inside yet, or for SIGKILL, the init is killed: the kernel then kills
 * everything in the namespace before bwrap sees the init exit, so the exit passed on comes after
 * everything is gone. A stop that arrives while bwrap has no child yet waits for it (a bounded wait; a
 * bwrap that starts none by then is stuck before the sandbox exists, and is itself signalled).
 */
export async function signalSandbox(bwrap: number, name: 'SIGTERM' | 'SIGKILL', running: () => boolean): Promise<void> {
  const deadline = Date.now() + INIT_WAIT_MS;
  while (running()) {
    const table = processTable();
    // Everything inside descends from the init, whatever group or session it moved to.
    const inits = table.filter((entry) => entry.ppid === bwrap).map((entry) => entry.pid);
    if (inits.length) {
      const inside = name === 'SIGTERM' ? inits.flatMap((init) => descendantsOf(init, table)) : [];
      if (inside.length) signalEach(inside, 'SIGTERM');
      else signalEach(inits, 'SIGKILL');
      return;
    }
    if (Date.now() > deadline) {
      signalEach([bwrap], name);
      return;
    }
    await sleep(10);
  }
}

/**
 * Once the agent has exited, what it left in its process group (`members()`) is stopped before its exit is
 * passed on, so nothing rewrites the deliverable after fed checked it: SIGTERM (unless a stop sent it
 * already), SIGKILL after the grace period; resolves when none is left.
 */
export async function endLeftovers(members: () => number[], graceMs: number, stopping: boolean): Promise<void> {
  let left = members();
  if (left.length && !stopping) signalEach(left, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (left.length) {
    if (Date.now() > deadline) signalEach(left, 'SIGKILL');
    await sleep(50);
    left = members();
  }
}

/** The sandbox's init (pid 1 of its namespace, bwrap's child) as this host names it: its pid and start time. */
export interface SandboxInit {
  pid: number;
  start: string;
}

/** The init of the sandbox bwrap (pid `bwrap`) runs, once bwrap has started it (a bounded wait). */
export async function sandboxInit(bwrap: number, running: () => boolean): Promise<SandboxInit | undefined> {
  const deadline = Date.now() + INIT_WAIT_MS;
  while (running() && Date.now() <= deadline) {
    const [init] = childrenOf(bwrap);
    const start = init === undefined ? undefined : processStartTime(init);
    if (init !== undefined && start !== undefined) return { pid: init, start };
    await sleep(5);
  }
  return undefined;
}

/**
 * Once bwrap exited: resolves when the sandbox's init is gone, and with it every process of the namespace.
 * bwrap passes its command's exit on as that command exits, while the init ends a moment later (bwrap's
 * --die-with-parent kills it as bwrap exits): the agent's exit is passed on after that. An init still
 * there after `graceMs` is killed (its start time checked, so a reused pid is never signalled); one that
 * outlives even that (stuck in the kernel) is said in `onStuck`, and no longer waited for.
 */
export async function endSandbox(init: SandboxInit, graceMs: number, onStuck: (pid: number) => void): Promise<void> {
  const killAt = Date.now() + graceMs;
  let killed = false;
  while (processIsAlive(init.pid, init.start)) {
    if (!killed && Date.now() > killAt) {
      signalEach([init.pid], 'SIGKILL');
      killed = true;
    } else if (killed && Date.now() > killAt + graceMs) {
      onStuck(init.pid);
      return;
    }
    await sleep(5);
  }
}
