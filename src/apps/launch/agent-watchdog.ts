import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { descendantsOf, processTable } from '../../infra/process/process-tree.js';

/**
 * The agent's supervisor: `node agent-watchdog.js <graceMs> [--sandboxed] <program> [args…]`. `fed launch`
 * starts it as the leader of the agent's own process group, with a pipe on fd 3 that only the launcher
 * holds. Otherwise it is transparent: the agent inherits stdin/stdout/stderr, and its exit code or signal
 * is passed on — but only once nothing the agent started is left:
 * - When the agent exits, what it left behind in its process group is stopped (SIGTERM, SIGKILL after the
 *   grace period) before the exit is passed on, so nothing rewrites the deliverable after fed checked it.
 *   In the sandbox (`--sandboxed`: the program is bwrap, in a session of its own) the agent's PID namespace
 *   ends with it, every process in it whatever its group.
 * - A stop from fed is SIGTERM to this process group. Outside the sandbox it reaches the agent directly;
 *   in the sandbox the watchdog passes it on to the sandbox's processes (bwrap itself, signalled, would die
 *   and take them with it by SIGKILL, without a chance to save their session).
 * - When the launcher dies — even by SIGKILL — the kernel closes the pipe; the watchdog then stops it all
 *   itself, so no agent ever runs unsupervised.
 */
const [graceText, ...command] = process.argv.slice(2);
const graceMs = Number(graceText);
const sandboxed = command[0] === '--sandboxed';
const [file, ...args] = sandboxed ? command.slice(1) : command;
if (!file || !Number.isFinite(graceMs)) {
  process.stderr.write('usage: agent-watchdog <graceMs> [--sandboxed] <program> [args…] (started by fed launch)\n');
  process.exit(2);
}

/** The other processes of this process group: what the agent (outside the sandbox) started and left. */
function othersInGroup(): number[] {
  return processTable()
    .filter((entry) => entry.group === process.pid && entry.pid !== process.pid)
    .map((entry) => entry.pid);
}

const signalEach = (pids: readonly number[], name: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // gone meanwhile
    }
  }
};

const signalGroup = (name: NodeJS.Signals) => {
  try {
    process.kill(-process.pid, name);
  } catch {
    // the group is gone
  }
};

// In the sandbox, bwrap leads a session of its own: fed's SIGTERM to this group does not reach it.
const child = spawn(file, args, { stdio: 'inherit', detached: sandboxed });
child.on('error', (error) => {
  process.stderr.write(`fed: cannot start the agent "${file}": ${error.message}\n`);
  process.exit(127);
});

/** Whether bwrap still runs: once it has exited its pid is not ours to signal (it may be reused). */
const sandboxRunning = () => sandboxed && child.exitCode === null && child.signalCode === null;

/**
 * The sandbox's init — bwrap's own child, pid 1 of its namespace, which passes the agent's exit on — and
 * every other process in the sandbox: all descend from that init, whatever group or session they moved to.
 */
function sandboxProcesses(): { inits: number[]; inside: number[] } {
  const table = processTable();
  const inits = table.filter((entry) => entry.ppid === child.pid).map((entry) => entry.pid);
  return { inits, inside: inits.flatMap((init) => descendantsOf(init, table)) };
}

let stopping = false;
/**
 * A stop began (fed's SIGTERM, SIGINT or SIGHUP to the group, or the launcher gone): the agent is asked to
 * end, and whatever still runs after the grace period is killed. In the sandbox that is its init: the
 * kernel then kills everything in the namespace before bwrap sees the init exit, so the exit passed on
 * comes after everything is gone.
 */
function beginStop(): void {
  if (stopping) return;
  stopping = true;
  if (sandboxRunning()) {
    const { inside } = sandboxProcesses();
    // No process inside yet: bwrap is still building the sandbox, and ending it ends the run.
    signalEach(inside.length ? inside : [child.pid!], 'SIGTERM');
  } // else the signal reached the agent's group already
  setTimeout(() => {
    if (sandboxRunning()) {
      const { inits } = sandboxProcesses();
      signalEach(inits.length ? inits : [child.pid!], 'SIGKILL');
    }
    signalEach(othersInGroup(), 'SIGKILL');
  }, graceMs).unref();
}
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(name, beginStop);

/** What the agent left in this process group is stopped: SIGTERM (unless fed's stop sent it), SIGKILL after the grace period. */
async function endLeftovers(): Promise<void> {
  let left = othersInGroup();
  if (left.length && !stopping) signalEach(left, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (left.length) {
    if (Date.now() > deadline) signalEach(left, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = othersInGroup();
  }
}

child.on('exit', (code, signal) => {
  // Whatever the agent left behind ends before its exit is passed on, so before fed checks the deliverable.
  void endLeftovers().then(() => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});

// A socket, not an fs stream: a blocking fs read would hold a thread-pool thread that process.exit waits for.
const lifeline = new Socket({ fd: 3, readable: true, writable: false });
let launcherGone = false;
const onLauncherGone = () => {
  if (launcherGone) return;
  launcherGone = true;
  process.stderr.write(`fed: the launcher is gone; stopping the agent (pid ${child.pid})\n`);
  beginStop();
  if (!sandboxed) signalGroup('SIGTERM');
};
lifeline.on('data', () => undefined);
lifeline.resume();
lifeline.on('end', onLauncherGone);
lifeline.on('error', onLauncherGone);
