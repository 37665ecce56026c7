import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { processIsAlive } from '../fs/process-identity.js';

/** A process running on this host, as `/proc` shows it. */
export interface RunningProcess {
  pid: number;
  /** The kernel's command name (`/proc/<pid>/comm`): the executable's file name, also for a script. */
  name: string;
  argv: string[];
  /** Its working directory, when this user may read it. */
  cwd?: string;
}

/**
 * The processes running on this host named `name`, or undefined on a platform without `/proc` (then
 * nothing can be said about them). Processes that exit while being read, and zombies, are left out.
 */
export function runningProcessesNamed(name: string): RunningProcess[] | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const found: RunningProcess[] = [];
  for (const entry of pids) {
    const pid = Number(entry);
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== name || !processIsAlive(pid)) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((arg) => arg !== '');
      let cwd: string | undefined;
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Another user's process: its arguments still tell what it works on.
      }
      found.push({ pid, name, argv, ...(cwd === undefined ? {} : { cwd }) });
    } catch {
      // It exited meanwhile.
    }
  }
  return found;
}
