import { basename, dirname, posix, resolve } from 'node:path';
import { projectCommands, type ProjectCommands } from './build-commands.js';
import { findEntryPoints, type EntryPoint } from './entry-points.js';
import { folderRole, outsideProduct } from './folder-roles.js';
import { largestSourceFiles, todoHotspots, type TodoHotspot } from './hotspots.js';
import { buildModuleGraph, type ImportContext, type ModuleGraph } from './import-graph.js';
import { IMPORT_READERS, takeInventory, type FileRecord } from './inventory.js';
import { MANIFEST_FILES, readManifest, readWorkspaceFile, WORKSPACE_FILES, type Manifest } from './manifests.js';
import { findPackages, type Packages, type WorkspaceDeclaration } from './packages.js';
import { summariseTests, type TestSummary } from './test-files.js';
import { walkCodebase, type Unreadable } from './walk-codebase.js';

/**
 * Everything fed learns about a codebase in one read-only pass: what `fed plan` splits the teams by, and
 * what the built-in agent writes its documents from.
 */
export interface Survey {
  codebase: string;
  /** From the primary manifest, else the folder name. */
  name: string;
  description: string | null;
  files: FileRecord[];
  unreadable: Unreadable[];
  totals: { files: number; lines: number; bytes: number };
  /** By lines, most first; files of no known language are left out. */
  languages: { name: string; kind: string; files: number; lines: number }[];
  /** Top-level folders and files, biggest first. */
  layout: { path: string; folder: boolean; files: number; lines: number; role: string | null }[];
  /** The product's manifests (not those of examples, docs, tests or fixtures), shallowest first. */
  manifests: Manifest[];
  /** The repository's own packages and how they depend on each other; a monorepo has two or more. */
  packages: Packages;
  /** Workspace files that could not be read (pnpm-workspace.yaml, go.work), with why. */
  workspaceProblems: { path: string; problem: string }[];
  /** How dependencies are installed, from the lock file present (npm, pnpm, yarn, bun). */
  packageManager: string | null;
  entryPoints: EntryPoint[];
  /** How to install, build, test and run it, from the manifests, scripts and Makefile. */
  commands: ProjectCommands;
  /** The README at the root, if there is one. */
  readme: string | null;
  tests: TestSummary;
  graph: ModuleGraph;
  todos: TodoHotspot[];
  todoCount: number;
  largest: FileRecord[];
}

const MAX_MANIFESTS = 60;
const MAX_MANIFEST_DEPTH = 4;
const LOCK_FILES: Record<string, string> = {
  'package-lock.json': 'npm',
  'pnpm-lock.yaml': 'pnpm',
  'yarn.lock': 'yarn',
  'bun.lockb': 'bun',
  'bun.lock': 'bun',
};

function tally<K>(
  files: readonly FileRecord[],
  keyOf: (f: FileRecord) => K | undefined,
): Map<K, { files: number; lines: number }> {
  const map = new Map<K, { files: number; lines: number }>();
  for (const file of files) {
    const key = keyOf(file);
    if (key === undefined) continue;
    const entry = map.get(key) ?? map.set(key, { files: 0, lines: 0 }).get(key)!;
    entry.files++;
    entry.lines += file.lines;
  }
  return map;
}

function findManifests(codebase: string, files: readonly FileRecord[]): Manifest[] {
  const depth = (path: string) => path.split('/').length;
  return files
    .filter(
      (f) =>
        !f.test && !outsideProduct(f.path) && basename(f.path) in MANIFEST_FILES && depth(f.path) <= MAX_MANIFEST_DEPTH,
    )
    .sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path))
    .slice(0, MAX_MANIFESTS)
    .map((f) => readManifest(codebase, f.path))
    .filter((m): m is Manifest => m !== undefined);
}

/** Workspace members: from manifests (npm `workspaces`, Cargo `[workspace]`) and the root's pnpm-workspace.yaml, lerna.json, nx.json and go.work. */
function workspaceDeclarations(codebase: string, files: readonly FileRecord[], manifests: readonly Manifest[]) {
  const declarations: WorkspaceDeclaration[] = [];
  const problems: { path: string; problem: string }[] = [];
  for (const manifest of manifests) {
    const dir = dirname(manifest.path);
    const inDir = (patterns: readonly string[]) => patterns.map((m) => posix.join(dir, m));
    if (manifest.workspaces.length)
      declarations.push({
        file: manifest.path,
        kind: manifest.kind,
        members: inDir(manifest.workspaces),
        excluded: inDir(manifest.workspaceExcludes),
      });
  }
  for (const file of Object.keys(WORKSPACE_FILES)) {
    if (!files.some((f) => f.path === file)) continue;
    const read = readWorkspaceFile(codebase, file)!;
    if (read.problem) problems.push({ path: file, problem: read.problem });
    else
      declarations.push({
        file,
        kind: read.kind,
        members: read.members.filter((m) => !m.startsWith('!')),
        excluded: read.members.filter((m) => m.startsWith('!')).map((m) => m.slice(1)),
      });
  }
  return { declarations, problems };
}

function importContext(manifests: readonly Manifest[], packages: Packages): ImportContext {
  const pythonDirs = manifests.filter((m) => m.kind === 'python').map((m) => dirname(m.path));
  return {
    goModules: manifests.filter((m) => m.kind === 'go' && m.name).map((m) => ({ dir: dirname(m.path), name: m.name! })),
    pythonRoots: [...new Set(['.', 'src', ...pythonDirs.flatMap((dir) => [dir, posix.join(dir, 'src')])])],
    npmPackages: new Map(packages.list.filter((p) => p.kind === 'npm').map((p) => [p.name, p.entryPoints[0] ?? null])),
    declaredDependencies: new Set(
      manifests
        .flatMap((m) => [...m.dependencies, ...m.devDependencies])
        .flatMap((d) => [d, d.toLowerCase().replace(/[-_.]+/g, '-')]),
    ),
  };
}

/**
 * The codebase's name before it is scanned — the root manifest's, and its folder's — for planning the
 * document: a mission that names the project is about all of it.
 */
export function projectNames(codebaseDir: string): string[] {
  const codebase = resolve(codebaseDir);
  // A Go module path or a scoped npm name is named by its last part: `example.com/acme/shop` is "shop".
  const names = Object.keys(MANIFEST_FILES).map((file) => readManifest(codebase, file)?.name?.split('/').pop() ?? null);
  return [...new Set([...names.filter((n): n is string => n !== null), basename(codebase)])];
}

export function surveyCodebase(codebaseDir: string): Survey {
  const codebase = resolve(codebaseDir);
  const { files, unreadable } = takeInventory(walkCodebase(codebase));
  const manifests = findManifests(codebase, files);
  const product = files.filter((f) => !f.test && !outsideProduct(f.path));
  const entryPoints = findEntryPoints(product, manifests);
  const workspaces = workspaceDeclarations(codebase, files, manifests);
  const packages = findPackages(manifests, workspaces.declarations, entryPoints);
  const modules = product.filter((f) => f.language !== null && f.language.name in IMPORT_READERS);
  const primary = manifests.find((m) => m.name !== null);
  const kindOf = new Map(files.map((f) => [f.language?.name, f.language?.kind ?? '']));
  const languages = [...tally(files, (f) => f.language?.name)]
    .map(([name, stats]) => ({ name, kind: kindOf.get(name) ?? '', ...stats }))
    .sort((a, b) => b.lines - a.lines || b.files - a.files);
  const layout = [...tally(files, (f) => f.path.split('/')[0])]
    .map(([path, stats]) => ({
      path,
      folder: files.some((f) => f.path.startsWith(`${path}/`)),
      ...stats,
      role: folderRole(path),
    }))
    .sort((a, b) => b.files - a.files || a.path.localeCompare(b.path));
  const todos = files.reduce((n, f) => n + f.todos.length, 0);
  const packageManager = Object.entries(LOCK_FILES).find(([lock]) => files.some((f) => f.path === lock))?.[1] ?? null;
  return {
    codebase,
    name: primary?.name ?? basename(codebase),
    description: primary?.description ?? null,
    files,
    unreadable,
    totals: {
      files: files.length,
      lines: files.reduce((n, f) => n + f.lines, 0),
      bytes: files.reduce((n, f) => n + f.bytes, 0),
    },
    languages,
    layout,
    manifests,
    packages,
    workspaceProblems: workspaces.problems,
    packageManager,
    entryPoints,
    commands: projectCommands(codebase, files, manifests, packageManager),
    readme: files.find((f) => /^readme(\.[\w]+)?$/i.test(f.path))?.path ?? null,
    tests: summariseTests(files, manifests),
    graph: buildModuleGraph(modules, importContext(manifests, packages)),
    todos: todoHotspots(files),
    todoCount: todos,
    largest: largestSourceFiles(files),
  };
}
