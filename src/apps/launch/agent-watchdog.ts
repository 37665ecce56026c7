import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';

/**
 * The agent's supervisor inside its process group: `node agent-watchdog.js <graceMs> <program> [args…]`.
 * `fed launch` starts it as the group leader with a pipe on fd 3 that only the launcher holds. When the
 * launcher dies — even by SIGKILL — the kernel closes that pipe; the watchdog then stops the whole group
 * (SIGTERM, SIGKILL after the grace period), so no agent ever runs unsupervised. Otherwise it is
 * transparent: the agent inherits stdin/stdout/stderr, and its exit code or signal is passed on.
 */
const [graceText, file, ...args] = process.argv.slice(2);
const graceMs = Number(graceText);
if (!file || !Number.isFinite(graceMs)) {
  process.stderr.write('usage: agent-watchdog <graceMs> <program> [args…] (started by fed launch)\n');
  process.exit(2);
}

// A stop from fed signals the whole group: the agent gets it and exits; the watchdog waits to pass its exit on.
let stopping = false;
const ignore = () => undefined;
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(name, () => (stopping = true));

/** Other processes still in this process group (a sandbox's agent can outlive the sandbox's own process). */
function othersInGroup(): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is the state (field 3), fields[2] the process group (field 5).
      if (fields[0] !== 'Z' && Number(fields[2]) === process.pid) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** While stopping, the exit is passed on only once the whole group is gone (SIGKILL after the grace period). */
async function groupGone(): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (othersInGroup()) {
    if (Date.now() > deadline) signalGroup('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const signalGroup = (name: NodeJS.Signals) => {
  try {
    process.kill(-process.pid, name);
  } catch {
    // the group is gone
  }
};

let launcherGone = false;
const child = spawn(file, args, { stdio: 'inherit' });
child.on('error', (error) => {
  process.stderr.write(`fed: cannot start the agent "${file}": ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  void (stopping || launcherGone ? groupGone() : Promise.resolve()).then(() => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});

// A socket, not an fs stream: a blocking fs read would hold a thread-pool thread that process.exit waits for.
const lifeline = new Socket({ fd: 3, readable: true, writable: false });
const onLauncherGone = () => {
  if (launcherGone) return;
  launcherGone = true;
  stopping = true;
  process.stderr.write(`fed: the launcher is gone; stopping the agent (pid ${child.pid})\n`);
  signalGroup('SIGTERM');
  setTimeout(() => signalGroup('SIGKILL'), graceMs).unref();
};
lifeline.on('data', ignore);
lifeline.resume();
lifeline.on('end', onLauncherGone);
lifeline.on('error', onLauncherGone);
