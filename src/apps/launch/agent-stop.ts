import { setTimeout as sleep } from 'node:timers/promises';
import { descendantsOf, processTable } from '../../infra/process/process-tree.js';

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

/**
 * Signals a running sandbox (bwrap, pid `bwrap`) as a stop does. SIGTERM goes to every process inside it —
 * bwrap itself, signalled, would die and take them with it by SIGKILL, without a chance to save their
 * session — or to bwrap while it is still building the sandbox (no process inside yet: ending it ends the
 * run). SIGKILL goes to the sandbox's init — bwrap's own child, pid 1 of its namespace, which passes the
 * agent's exit on: the kernel then kills everything in the namespace before bwrap sees the init exit, so
 * the exit passed on comes after everything is gone.
 */
export function signalSandbox(bwrap: number, name: 'SIGTERM' | 'SIGKILL'): void {
  const table = processTable();
  // Everything inside descends from the init, whatever group or session it moved to.
  const inits = table.filter((entry) => entry.ppid === bwrap).map((entry) => entry.pid);
  const targets = name === 'SIGTERM' ? inits.flatMap((init) => descendantsOf(init, table)) : inits;
  signalEach(targets.length ? targets : [bwrap], name);
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
