import { readdirSync, readlinkSync } from 'node:fs';

/**
 * The paths this process holds a descriptor open on, under `dir` (or `dir` itself): what a function that
 * forgot to close a file leaves behind. Read from /proc/self/fd, so the descriptor the listing itself opens
 * is never under `dir`.
 */
export function openDescriptorsUnder(dir: string): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let path: string;
    try {
      path = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the listing's own descriptor, closed by now
    }
    if (path === dir || path.startsWith(`${dir}/`)) paths.push(path);
  }
  return paths;
}
