import { readdirSync, readFileSync } from 'node:fs';

/** A live process as `/proc/<pid>/stat` shows it: its parent and its process group. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  group: number;
}

/**
 * The live processes on this host (zombies left out), or an empty list on a platform without `/proc`.
 * Processes that exit while being read are left out too.
 */
export function processTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 2, the command name in parentheses, may contain spaces and parentheses: after the last ")"
      // come the state (field 3), the parent (4) and the process group (5).
      const [state, ppid, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') table.push({ pid: Number(entry), ppid: Number(ppid), group: Number(group) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/**
 * Every live descendant of `pid` (children first, then theirs…), whatever process group or session it
 * moved to — except those whose parent exited, which the kernel hands to a reaper elsewhere.
 */
export function descendantsOf(pid: number, table: readonly ProcessEntry[] = processTable()): number[] {
  const found: number[] = [];
  let parents = [pid];
  while (parents.length) {
    const children = table.filter((entry) => parents.includes(entry.ppid)).map((entry) => entry.pid);
    found.push(...children);
    parents = children;
  }
  return found;
}

/**
 * The live children of `pid`: from `/proc/<pid>/task/<pid>/children` (one small file), else from the whole
 * process table (a kernel without that file).
 */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return processTable()
      .filter((entry) => entry.ppid === pid)
      .map((entry) => entry.pid);
  }
}
