import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A process's start time in clock ticks since boot (/proc/<pid>/stat field 22), or null when the process
 * is gone (or there is no /proc). With the pid it names one process for good: a pid reused later has
 * another start time.
 */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name) is in parentheses and may hold spaces: count from after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[22 - 3];
    return start ? { state: fields[0]!, start } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process recorded as (pid, start time) is still running (a zombie has exited already). */
export function isSameProcessAlive(pid: number, start: string | null): boolean {
  const now = procStat(pid);
  return now !== undefined && now.state !== 'Z' && (start === null || now.start === start);
}

/**
 * Stop an agent left behind by a launcher that died (its process group: the agent's supervisor and
 * everything it started): SIGTERM, then SIGKILL after the grace period. Returns whether it was running.
 */
export async function stopOrphanGroup(pid: number, start: string | null, graceMs: number): Promise<boolean> {
  if (!isSameProcessAlive(pid, start)) return false;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // gone already
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isSameProcessAlive(pid, start)) await sleep(50);
  signal('SIGKILL');
  while (isSameProcessAlive(pid, start)) await sleep(20);
  return true;
}
