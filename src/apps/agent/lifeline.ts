import { LIFELINE_ENV, LIFELINE_GRACE_ENV } from '../../infra/process/lifeline.js';
import { endGroupWithLauncher } from '../../infra/process/lifeline-worker.js';

/**
 * Loaded by `fed-agent` first (src/apps/agent/bin.ts), before V8's flags change (v8-tiering.ts): the
 * worker thread that watches the lifeline starts its Node under the flags Node's own code cache was made
 * with — started after the change, that cache is rejected and the worker costs twice the CPU.
 *
 * Launched by `fed launch`, the agent holds its launcher's lifeline (LIFELINE_ENV), and there is no
 * watchdog around it: when the launcher is gone — even killed by SIGKILL — the agent ends at once, even in
 * the middle of its synchronous scan (the worker watches the lifeline). Outside the sandbox the launcher
 * made it its process group's leader, and the group ends with it: SIGTERM, then SIGKILL after the grace
 * period to what is left (a `fed` it runs). In the sandbox bwrap's init leads the group, and the agent ends
 * itself alone: bwrap, started with --die-with-parent, is killed with the launcher, and with it everything
 * in the sandbox's PID namespace.
 */
const fd = process.env[LIFELINE_ENV];
if (fd !== undefined) {
  const graceMs = Number(process.env[LIFELINE_GRACE_ENV] ?? 5_000);
  // The descriptor is this process's: a program it runs is not told it holds one.
  delete process.env[LIFELINE_ENV];
  delete process.env[LIFELINE_GRACE_ENV];
  endGroupWithLauncher(Number(fd), graceMs, 'fed-agent: the launcher is gone; stopping\n');
}
