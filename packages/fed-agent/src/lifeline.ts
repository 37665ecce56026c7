import { endGroupWithLauncher, LIFELINE_ENV, LIFELINE_GRACE_ENV, watchLifeline } from 'fed/lifeline';

/**
 * Loaded by `fed-agent` first (bin.ts), before V8's flags change (fed/v8-tiering): a worker
 * thread that watches the lifeline starts its Node under the flags Node's own code cache was made with —
 * started after the change, that cache is rejected and the worker costs twice the CPU.
 *
 * Launched by `fed launch`, the agent holds its launcher's lifeline (LIFELINE_ENV), and there is no
 * watchdog around it. Outside the sandbox the launcher made it its process group's leader: when the
 * launcher is gone — even killed by SIGKILL — the group ends at once, even in the middle of the agent's
 * synchronous scan (a worker thread watches the lifeline): SIGTERM, then SIGKILL after the grace period to
 * what is left (a `fed` it runs). In the sandbox bwrap's init leads the group, and what ends the agent is
 * bwrap, started with --die-with-parent: it is killed with the launcher, and with it everything in the
 * sandbox's PID namespace, whatever it is doing. There the agent watches the lifeline on its own thread
 * only in case, and ends itself alone — no worker's CPU for what bwrap does already.
 */
const fd = process.env[LIFELINE_ENV];
if (fd !== undefined) {
  const graceMs = Number(process.env[LIFELINE_GRACE_ENV] ?? 5_000);
  // The descriptor is this process's: a program it runs is not told it holds one.
  delete process.env[LIFELINE_ENV];
  delete process.env[LIFELINE_GRACE_ENV];
  const message = 'fed-agent: the launcher is gone; stopping\n';
  if (leadsItsGroup())
    endGroupWithLauncher(Number(fd), graceMs, message, (error) =>
      process.stderr.write(`fed-agent: the launcher's lifeline cannot be watched: ${error.message}\n`),
    );
  else
    watchLifeline(Number(fd), () => {
      process.stderr.write(message);
      process.kill(process.pid, 'SIGTERM');
    });
}

/** Whether this process leads a process group (a group's id is its leader's pid). */
function leadsItsGroup(): boolean {
  try {
    process.kill(-process.pid, 0);
    return true;
  } catch {
    return false;
  }
}
