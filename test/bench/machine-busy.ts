/**
 * The machine's busy CPU time so far, in ms, from Linux's /proc/stat: user, nice, system, irq and softirq
 * time of all cores together (not idle, iowait or steal), in clock ticks of 10 ms (USER_HZ is 100 on
 * Linux). Read before and after a run, the difference counts everything the run made the machine do —
 * every process it started, node or not (bubblewrap, sh), whether or not its parent reaped it, and the
 * kernel's work for them — plus whatever else ran meanwhile (each row's load says how much that could
 * be). Undefined where there is no /proc/stat.
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

export function machineBusyMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (guest time is inside user).
  const [user, nice, system, , , irq, softirq] = stat
    .slice(0, stat.indexOf('\n'))
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq!) * TICK_MS;
}
