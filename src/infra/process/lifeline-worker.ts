import { readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * The lifeline watched from a worker thread, for a process whose main thread runs long synchronous work
 * (fed-agent's codebase scan): an event on the main thread would wait for that work to end, while the
 * worker's own event loop sees the launcher's end close at once. The worker is unref'd and its loop waits
 * in the kernel, so it neither keeps the process alive nor holds up its exit.
 *
 * At the end of the lifeline it writes `message` to stderr and ends the process group this process leads:
 * SIGTERM to the group (this process included: it has no SIGTERM handler, so it ends at once, mid-scan),
 * and — since nothing of the process is left to do it — a detached reaper SIGKILLs what is still in the
 * group after `graceMs`, and ends as soon as the group is gone. A process that leads no group (in the
 * sandbox, bwrap's init leads it) ends itself; there bwrap's --die-with-parent ends the rest.
 */
const WORKER_SOURCE = `
const { Socket } = require('node:net');
const { writeSync } = require('node:fs');
const { workerData: { fd, graceMs, message, watching } } = require('node:worker_threads');
const REAPER = ${JSON.stringify(reaperSource())};
let gone = false;
function end() {
  if (gone) return;
  gone = true;
  try { writeSync(2, message); } catch {}
  const group = process.pid;
  try {
    process.kill(-group, 0);
  } catch {
    process.kill(process.pid, 'SIGTERM');
    return;
  }
  try {
    require('node:child_process').spawn(process.execPath, ['-e', REAPER, String(group), String(graceMs)], { detached: true, stdio: 'ignore' }).unref();
  } catch {}
  process.kill(-group, 'SIGTERM');
}
const lifeline = new Socket({ fd, readable: true, writable: false });
lifeline.on('data', () => undefined);
lifeline.on('end', end);
lifeline.on('error', end);
lifeline.resume();
// The descriptor is non-blocking now: the main thread may look at it too (see below).
Atomics.store(new Int32Array(watching), 0, 1);
Atomics.notify(new Int32Array(watching), 0);
`;

/** `node -e <this> <group> <graceMs>`: SIGKILL to what is left of the group after the grace period. */
function reaperSource(): string {
  return `
const [group, graceMs] = process.argv.slice(1).map(Number);
const deadline = Date.now() + graceMs;
const left = () => { try { process.kill(-group, 0); return true; } catch { return false; } };
const tick = () => {
  if (!left()) return;
  if (Date.now() < deadline) return void setTimeout(tick, 50);
  try { process.kill(-group, 'SIGKILL'); } catch {}
};
tick();
`;
}

/**
 * Ends this process's group when the launcher's end of the lifeline on `fd` closes (see above). Returns
 * once the worker watches (a few milliseconds of its Node starting; the CPU is the worker's).
 */
export function endGroupWithLauncher(
  fd: number,
  graceMs: number,
  message: string,
  onError: (error: Error) => void,
): void {
  const watching = new SharedArrayBuffer(4);
  const flag = new Int32Array(watching);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { fd, graceMs, message, watching } });
  worker.unref();
  // A lifeline it cannot watch (a bad descriptor): told to the caller, and the process goes on without one.
  worker.on('error', onError);
  Atomics.wait(flag, 0, 0, 2_000);
  // The main thread may end first for the same cause (the launcher's broker connection closed with it):
  // exiting would stop the worker before it ends the group, so the exit gives the worker up to 2 s to end
  // it (its SIGTERM ends this process).
  process.once('exit', () => {
    if (Atomics.load(flag, 0) === 1 && lifelineClosed(fd)) Atomics.wait(flag, 0, 1, 2_000);
  });
}

/** Whether the launcher's end of the lifeline is closed; `fd` must be non-blocking (the worker made it so). */
function lifelineClosed(fd: number): boolean {
  try {
    return readSync(fd, Buffer.alloc(1)) === 0;
  } catch {
    // EAGAIN: the launcher holds its end.
    return false;
  }
}
