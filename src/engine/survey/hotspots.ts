import type { FileRecord } from './inventory.js';
import type { TodoMarker } from './source-scan.js';

/** Files that deserve a newcomer's attention first: where the TODO/FIXME markers cluster, and the biggest. */
export interface TodoHotspot {
  path: string;
  count: number;
  first: TodoMarker;
}

export function todoHotspots(files: readonly FileRecord[], limit = 10): TodoHotspot[] {
  return files
    .filter((f) => f.todos.length > 0)
    .sort((a, b) => b.todos.length - a.todos.length || a.path.localeCompare(b.path))
    .slice(0, limit)
    .map((f) => ({ path: f.path, count: f.todos.length, first: f.todos[0]! }));
}

/** The longest source files (by lines, then bytes); data such as lock files would crowd them out. */
export function largestSourceFiles(files: readonly FileRecord[], limit = 10): FileRecord[] {
  return files
    .filter((f) => f.analysed && f.language?.kind === 'code')
    .sort((a, b) => b.lines - a.lines || b.bytes - a.bytes || a.path.localeCompare(b.path))
    .slice(0, limit);
}
