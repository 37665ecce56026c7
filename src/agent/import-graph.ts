import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import type { FileRecord } from './inventory.js';
import { isScriptModule } from './languages.js';

/**
 * How the TypeScript/JavaScript modules of a codebase depend on each other, folded into groups a reader
 * can take in at a glance: files are grouped by folder at the depth that first gives a few groups, at
 * most MAX_GROUPS are kept (the best connected; the rest become "other"), and only the strongest
 * MAX_EDGES links are drawn. Test files are left out: they depend on everything and would hide the shape.
 */
export const MAX_GROUPS = 15;
export const MAX_EDGES = 30;
/** The group the least connected modules are merged into when there are too many. */
export const OTHER_GROUP = 'other';

export interface ModuleGroup {
  id: string;
  /** How to show it: `src/cli/` for a folder, `src/*` for the files directly in a folder whose subfolders are groups too, a path for a file. */
  label: string;
  files: number;
  lines: number;
  /** How many other groups import from this one. */
  dependents: number;
}

export interface ModuleGraph {
  /** Groups are folders, or single files when the folders do not split the modules into a few groups. */
  grouping: 'folder' | 'file';
  /** TypeScript/JavaScript files considered (tests excluded). */
  modules: number;
  /** Relative imports that resolved to a file of the codebase. */
  internalImports: number;
  groups: ModuleGroup[];
  /** The group most others import from (not "other"), when there are links at all. */
  hub: ModuleGroup | null;
  /** Group-to-group links, strongest first; `imports` counts the file-level imports behind each. */
  edges: { from: string; to: string; imports: number }[];
  omittedEdges: number;
  /** External packages by the number of files importing them, most used first. */
  external: { name: string; files: number }[];
}

const RESOLVE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const BUILTINS = new Set(builtinModules);

/** The file a relative specifier names: exact, `.js` written for a `.ts` source (NodeNext), extensionless, or a folder index. */
function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = posix.join(posix.dirname(from), specifier);
  if (files.has(target)) return target;
  const stem = target.replace(/\.(c|m)?jsx?$/, '');
  for (const ext of RESOLVE_EXTENSIONS) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  for (const ext of RESOLVE_EXTENSIONS) if (files.has(`${target}/index${ext}`)) return `${target}/index${ext}`;
  return undefined;
}

/** `@scope/pkg/sub` → `@scope/pkg`, `lodash/fp` → `lodash`; builtins and aliases such as `@/x` or `~/x` are not packages. */
function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || specifier.startsWith('#') || specifier.startsWith('~') || specifier.startsWith('@/')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTINS.has(name) ? undefined : name;
}

/** The first `depth` folders of a file's path (`.` for files at the root), without splitting it: this runs for every module at every depth. */
function folderGroup(path: string, depth: number): string {
  const lastSlash = path.lastIndexOf('/');
  if (lastSlash === -1) return '.';
  let end = -1;
  for (let d = 0; d < depth; d++) {
    const next = path.indexOf('/', end + 1);
    if (next === -1 || next > lastSlash) break;
    end = next;
  }
  return path.slice(0, end === -1 ? lastSlash : end);
}

/** The shallowest folder depth that splits the modules into a few groups; files themselves if folders never do. */
function chooseGrouping(paths: readonly string[]): { grouping: ModuleGraph['grouping']; groupOf: (path: string) => string } {
  let best = 1;
  let bestCount = 0;
  for (let depth = 1; depth <= 4; depth++) {
    const count = new Set(paths.map((p) => folderGroup(p, depth))).size;
    if (count > bestCount) {
      best = depth;
      bestCount = count;
    }
    if (count >= 6) break;
  }
  if (bestCount < 3) return { grouping: 'file', groupOf: (path) => path };
  return { grouping: 'folder', groupOf: (path) => folderGroup(path, best) };
}

export function buildModuleGraph(files: readonly FileRecord[]): ModuleGraph {
  const modules = files.filter((f) => !f.test && isScriptModule(f.language));
  const paths = new Set(modules.map((m) => m.path));
  const fileEdges: [string, string][] = [];
  const externalFiles = new Map<string, Set<string>>();
  for (const file of modules) {
    for (const specifier of file.imports) {
      if (specifier.startsWith('.')) {
        const target = resolveRelative(file.path, specifier, paths);
        if (target) fileEdges.push([file.path, target]);
        continue;
      }
      const name = packageName(specifier);
      if (name) (externalFiles.get(name) ?? externalFiles.set(name, new Set()).get(name)!).add(file.path);
    }
  }

  const grouping = chooseGrouping([...paths]);
  const groups = new Map([...paths].map((path) => [path, grouping.groupOf(path)]));
  const groupOf = (path: string) => groups.get(path) ?? path;
  const weights = new Map<string, number>();
  const degree = new Map<string, number>();
  for (const [from, to] of fileEdges) {
    const a = groupOf(from);
    const b = groupOf(to);
    if (a === b) continue;
    weights.set(`${a}\n${b}`, (weights.get(`${a}\n${b}`) ?? 0) + 1);
    degree.set(a, (degree.get(a) ?? 0) + 1);
    degree.set(b, (degree.get(b) ?? 0) + 1);
  }
  const groupStats = new Map<string, ModuleGroup>();
  for (const file of modules) {
    const id = groupOf(file.path);
    const stats = groupStats.get(id) ?? groupStats.set(id, { id, label: id, files: 0, lines: 0, dependents: 0 }).get(id)!;
    stats.files++;
    stats.lines += file.lines;
  }
  const ranked = [...groupStats.values()].sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || b.files - a.files || a.id.localeCompare(b.id));
  const kept = new Set((ranked.length > MAX_GROUPS ? ranked.slice(0, MAX_GROUPS - 1) : ranked).map((g) => g.id));
  const shown = (id: string) => (kept.has(id) ? id : OTHER_GROUP);

  const merged = new Map<string, number>();
  for (const [key, count] of weights) {
    const [a, b] = key.split('\n') as [string, string];
    const edge = `${shown(a)}\n${shown(b)}`;
    if (shown(a) !== shown(b)) merged.set(edge, (merged.get(edge) ?? 0) + count);
  }
  const edges = [...merged]
    .map(([key, imports]) => {
      const [from, to] = key.split('\n') as [string, string];
      return { from, to, imports };
    })
    .sort((a, b) => b.imports - a.imports || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  const shownGroups = ranked.filter((g) => kept.has(g.id));
  const rest = ranked.filter((g) => !kept.has(g.id));
  if (rest.length) shownGroups.push({ id: OTHER_GROUP, label: OTHER_GROUP, files: rest.reduce((n, g) => n + g.files, 0), lines: rest.reduce((n, g) => n + g.lines, 0), dependents: 0 });
  for (const group of shownGroups) {
    group.dependents = edges.filter((e) => e.to === group.id).length;
    if (grouping.grouping === 'folder' && group.id !== OTHER_GROUP) {
      const hasSubgroups = group.id === '.' || [...groupStats.keys()].some((id) => id.startsWith(`${group.id}/`));
      group.label = hasSubgroups ? `${group.id}/*` : `${group.id}/`;
    }
  }
  const hub = shownGroups.filter((g) => g.id !== OTHER_GROUP && g.dependents > 0).sort((a, b) => b.dependents - a.dependents)[0] ?? null;
  return {
    grouping: grouping.grouping,
    modules: modules.length,
    internalImports: fileEdges.length,
    groups: shownGroups,
    hub,
    edges: edges.slice(0, MAX_EDGES),
    omittedEdges: Math.max(0, edges.length - MAX_EDGES),
    external: [...externalFiles].map(([name, users]) => ({ name, files: users.size })).sort((a, b) => b.files - a.files || a.name.localeCompare(b.name)),
  };
}
