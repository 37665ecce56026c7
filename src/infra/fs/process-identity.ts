import { readFileSync } from 'node:fs';

/**
 * Which process a pid names right now. A pid is reused once its process exits, so "pid N is alive" is
 * only evidence that the process we recorded is alive when its start time still matches too.
 */

/** Fields of `/proc/<pid>/stat`: the state letter (field 3) and the start time (field 22). */
function procStat(pid: number): { state: string; start: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 is the command name in parentheses and may itself contain spaces and parentheses: count the
  // fields after the last ")" — the first of those is field 3, so field 22 is the 20th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? { state: fields[0]!, start } : undefined;
}

/**
 * The start time of `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or undefined when
 * the process does not exist or the platform has no `/proc` (then only the pid can be checked).
 */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** This process's start time, read once. */
let ownStartTime: string | undefined | null = null;
export function currentProcessStartTime(): string | undefined {
  if (ownStartTime === null) ownStartTime = processStartTime(process.pid);
  return ownStartTime;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process recorded as (`pid`, `startTime`) on this host is still running. Without a recorded
 * start time (or without `/proc`) the pid alone decides, erring towards "alive".
 */
export function processIsAlive(pid: number, startTime?: string): boolean {
  // kill(2) reads 0 and negative ids as process groups (0: the caller's own), so they name no process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return startTime === undefined || startTime === currentProcessStartTime();
  if (!pidExists(pid)) return false;
  const now = procStat(pid);
  // A zombie has exited already; it only waits for its parent to collect it.
  if (now?.state === 'Z') return false;
  return startTime === undefined || now === undefined || now.start === startTime;
}
