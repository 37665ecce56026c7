import { setTimeout as sleep } from 'node:timers/promises';
import { processIsAlive } from '../../infra/fs/process-identity.js';

/**
 * Stop an agent left behind by a launcher that died (its process group: the agent's supervisor and
 * everything it started): SIGTERM, then SIGKILL after the grace period. Returns whether it was running.
 */
export async function stopOrphanGroup(pid: number, start: string | null, graceMs: number): Promise<boolean> {
  if (!processIsAlive(pid, start ?? undefined)) return false;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // gone already
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processIsAlive(pid, start ?? undefined)) await sleep(50);
  signal('SIGKILL');
  while (processIsAlive(pid, start ?? undefined)) await sleep(20);
  return true;
}
