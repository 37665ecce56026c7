import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import type { FileRecord } from './inventory.js';

/**
 * How the TypeScript/JavaScript, Python and Go modules of a codebase depend on each other, folded into groups a reader
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
  /** Source files considered (TypeScript/JavaScript, Python, Go; tests, examples and fixtures excluded). */
  modules: number;
  /** Their languages, most files first. */
  languages: string[];
  /** Imports that resolved to a file of the codebase. */
  internalImports: number;
  /** The file-level links behind the groups: `from` imports `to`. */
  links: { from: string; to: string }[];
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

/** What resolving imports needs to know about the codebase beyond its file list. */
export interface ImportContext {
  /** Go modules: their folder and module path (from each go.mod). */
  goModules: { dir: string; name: string }[];
  /** Folders Python's absolute imports start from (`.`, `src`, each Python project's folder and its `src`). */
  pythonRoots: string[];
  /** The repository's own npm packages, by name, and the file each one starts from (imports of them are internal). */
  npmPackages: Map<string, string | null>;
  /** Dependencies the manifests declare: an unresolved Python import counts as external only when declared (the rest is the standard library). */
  declaredDependencies: Set<string>;
}

export const emptyImportContext = (): ImportContext => ({
  goModules: [],
  pythonRoots: ['.'],
  npmPackages: new Map(),
  declaredDependencies: new Set(),
});

/** The file a relative specifier names: exact, `.js` written for a `.ts` source (NodeNext), extensionless, or a folder index. */
export function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = posix.join(posix.dirname(from), specifier);
  if (files.has(target)) return target;
  const stem = target.replace(/\.(c|m)?jsx?$/, '');
  for (const ext of RESOLVE_EXTENSIONS) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  for (const ext of RESOLVE_EXTENSIONS) if (files.has(`${target}/index${ext}`)) return `${target}/index${ext}`;
  return undefined;
}

/** `@scope/pkg/sub` → `@scope/pkg`, `lodash/fp` → `lodash`; builtins and aliases such as `@/x` or `~/x` are not packages. */
function packageName(specifier: string): string | undefined {
  if (
    specifier.startsWith('node:') ||
    specifier.startsWith('#') ||
    specifier.startsWith('~') ||
    specifier.startsWith('@/')
  )
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTINS.has(name) ? undefined : name;
}

type Resolution = { file: string } | { external: string } | undefined;

function resolveScript(
  from: string,
  specifier: string,
  files: ReadonlySet<string>,
  context: ImportContext,
): Resolution {
  if (specifier.startsWith('.')) {
    const file = resolveRelative(from, specifier, files);
    return file ? { file } : undefined;
  }
  const name = packageName(specifier);
  if (!name) return undefined;
  if (context.npmPackages.has(name)) {
    const file = context.npmPackages.get(name);
    return file ? { file } : undefined;
  }
  return { external: name };
}

/** `a.b.c` from `root`: `a/b/c.py`, `a/b/c/__init__.py`, else the same for `a.b` (c was a name inside it)… */
function pythonModule(
  root: string,
  parts: readonly string[],
  minimum: number,
  files: ReadonlySet<string>,
): string | undefined {
  for (let k = parts.length; k >= minimum; k--) {
    const path = posix.join(root, ...parts.slice(0, k));
    if (k > 0 && files.has(`${path}.py`)) return `${path}.py`;
    if (files.has(`${path}/__init__.py`)) return `${path}/__init__.py`;
  }
  return undefined;
}

const pythonDistribution = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

function resolvePython(
  from: string,
  specifier: string,
  files: ReadonlySet<string>,
  context: ImportContext,
): Resolution {
  const dots = /^\.*/.exec(specifier)![0].length;
  const parts = specifier
    .slice(dots)
    .split('.')
    .filter((p) => p !== '');
  if (dots > 0) {
    let base = posix.dirname(from);
    for (let up = 1; up < dots; up++) base = posix.dirname(base);
    const file = pythonModule(base, parts, 0, files);
    return file ? { file } : undefined;
  }
  for (const root of context.pythonRoots) {
    const file = pythonModule(root, parts, 1, files);
    if (file) return { file };
  }
  const top = parts[0] ?? '';
  return context.declaredDependencies.has(pythonDistribution(top)) || context.declaredDependencies.has(top)
    ? { external: top }
    : undefined;
}

function resolveGo(specifier: string, goFiles: ReadonlyMap<string, string>, context: ImportContext): Resolution {
  const module = context.goModules
    .filter((m) => specifier === m.name || specifier.startsWith(`${m.name}/`))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (module) {
    const file = goFiles.get(posix.join(module.dir, specifier.slice(module.name.length + 1)));
    return file ? { file } : undefined;
  }
  const first = specifier.split('/')[0] ?? '';
  if (!first.includes('.')) return undefined; // the standard library
  const declared = [...context.declaredDependencies]
    .filter((d) => specifier === d || specifier.startsWith(`${d}/`))
    .sort((a, b) => b.length - a.length)[0];
  return { external: declared ?? specifier.split('/').slice(0, 3).join('/') };
}

/** Each Go package folder and the file that stands for it: the one named after the folder, else the first. */
function goPackageFiles(modules: readonly FileRecord[]): Map<string, string> {
  const byDir = new Map<string, string>();
  for (const file of modules) {
    if (file.language?.name !== 'Go') continue;
    const dir = posix.dirname(file.path);
    const current = byDir.get(dir);
    const named = posix.basename(file.path) === `${posix.basename(dir)}.go`;
    if (current === undefined || (named && posix.basename(current) !== `${posix.basename(dir)}.go`))
      byDir.set(dir, file.path);
  }
  return byDir;
}

function tally(modules: readonly FileRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of modules)
    if (file.language) counts.set(file.language.name, (counts.get(file.language.name) ?? 0) + 1);
  return counts;
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
function chooseGrouping(paths: readonly string[]): {
  grouping: ModuleGraph['grouping'];
  groupOf: (path: string) => string;
} {
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

/** `modules` are the product's source files in the languages whose imports the survey reads (no tests, examples or fixtures). */
export function buildModuleGraph(
  files: readonly FileRecord[],
  context: ImportContext = emptyImportContext(),
): ModuleGraph {
  const modules = files.filter((f) => !f.test);
  const paths = new Set(modules.map((m) => m.path));
  const goFiles = goPackageFiles(modules);
  const fileEdges: [string, string][] = [];
  const seen = new Set<string>();
  const externalFiles = new Map<string, Set<string>>();
  for (const file of modules) {
    const language = file.language?.name;
    for (const specifier of file.imports) {
      const resolved =
        language === 'Python'
          ? resolvePython(file.path, specifier, paths, context)
          : language === 'Go'
            ? resolveGo(specifier, goFiles, context)
            : resolveScript(file.path, specifier, paths, context);
      if (!resolved) continue;
      if ('external' in resolved)
        (
          externalFiles.get(resolved.external) ??
          externalFiles.set(resolved.external, new Set()).get(resolved.external)!
        ).add(file.path);
      else if (resolved.file !== file.path && !seen.has(`${file.path}\n${resolved.file}`)) {
        seen.add(`${file.path}\n${resolved.file}`);
        fileEdges.push([file.path, resolved.file]);
      }
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
    const stats =
      groupStats.get(id) ?? groupStats.set(id, { id, label: id, files: 0, lines: 0, dependents: 0 }).get(id)!;
    stats.files++;
    stats.lines += file.lines;
  }
  const ranked = [...groupStats.values()].sort(
    (a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || b.files - a.files || a.id.localeCompare(b.id),
  );
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
  if (rest.length)
    shownGroups.push({
      id: OTHER_GROUP,
      label: OTHER_GROUP,
      files: rest.reduce((n, g) => n + g.files, 0),
      lines: rest.reduce((n, g) => n + g.lines, 0),
      dependents: 0,
    });
  for (const group of shownGroups) {
    group.dependents = edges.filter((e) => e.to === group.id).length;
    if (grouping.grouping === 'folder' && group.id !== OTHER_GROUP) {
      const hasSubgroups = group.id === '.' || [...groupStats.keys()].some((id) => id.startsWith(`${group.id}/`));
      group.label = hasSubgroups ? `${group.id}/*` : `${group.id}/`;
    }
  }
  const hub =
    shownGroups
      .filter((g) => g.id !== OTHER_GROUP && g.dependents > 0)
      .sort((a, b) => b.dependents - a.dependents)[0] ?? null;
  return {
    grouping: grouping.grouping,
    modules: modules.length,
    languages: [...tally(modules)].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name),
    internalImports: fileEdges.length,
    links: fileEdges.map(([from, to]) => ({ from, to })),
    groups: shownGroups,
    hub,
    edges: edges.slice(0, MAX_EDGES),
    omittedEdges: Math.max(0, edges.length - MAX_EDGES),
    external: [...externalFiles]
      .map(([name, users]) => ({ name, files: users.size }))
      .sort((a, b) => b.files - a.files || a.name.localeCompare(b.name)),
  };
}
