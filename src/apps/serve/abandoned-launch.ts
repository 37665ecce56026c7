import type { RegistryEntry } from '../../core/schema/registry.js';
import { stopOrphanGroup } from '../launch/prepare/orphan-agent.js';
import { readCurrentRun } from '../launch/run-records.js';
import { DEFAULT_GRACE_MS } from '../launch/supervise/agent-process.js';

/**
 * The agent of a launch a stopping server gave up on (its end could not be recorded in time): stopped now,
 * as the next launch would stop an orphan's — the server must not exit with it running unsupervised. Its
 * run stays recorded as in progress: the next start records it and goes on with the work it owes.
 */
export async function stopAbandonedAgent(team: RegistryEntry, graceMs = DEFAULT_GRACE_MS): Promise<void> {
  const run = readCurrentRun(team.location);
  // Only this server's launch's: a run in progress left by another launcher is that launcher's, or the next's.
  if (run?.launcherPid === process.pid) await stopOrphanGroup(run.pid, run.processStart, graceMs);
}
