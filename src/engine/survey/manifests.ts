import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

/**
 * Build manifests of the ecosystems a survey recognises, reduced to what a newcomer needs: the project's
 * name and purpose, its commands, where it starts, what it depends on (at run time and for development,
 * apart) and, for a workspace root, which folders hold its packages. TOML is read with `smol-toml` and
 * pnpm's workspace file with `yaml`; go.mod's line syntax is simple enough to read directly.
 */
export type ManifestKind = 'npm' | 'python' | 'go' | 'cargo';

export interface Manifest {
  path: string;
  kind: ManifestKind;
  name: string | null;
  /** The version it publishes (npm `version`, Cargo `[package] version`, Python `[project] version`). */
  version: string | null;
  description: string | null;
  /** npm `scripts`; empty for the others. */
  scripts: Record<string, string>;
  /** Declared entry points: the manifest field (npm `bin`/`main`/`exports`, Python `[project.scripts]`, Cargo `[[bin]]`), the command name it gives, and the file or module it names. */
  entryPoints: { field: string; name: string | null; target: string }[];
  /** Needed at run time (npm peerDependencies included: see `peerDependencies`). */
  dependencies: string[];
  /** Of `dependencies`, those the user installs beside it (npm `peerDependencies`). */
  peerDependencies: string[];
  /** Needed only to develop, build or test (npm devDependencies, Python optional/dev groups, Cargo dev-dependencies). */
  devDependencies: string[];
  /** Python `[tool.*]` tables (pytest, ruff, poetry…): the tools the project configures. */
  tools: string[];
  /** Workspace member patterns, relative to the manifest's folder (npm/yarn `workspaces`, pnpm-workspace.yaml, Cargo `[workspace] members`, go.work `use`). */
  workspaces: string[];
  /** Folders excluded from the workspace (Cargo `[workspace] exclude`). */
  workspaceExcludes: string[];
  /** The version members inherit with `version.workspace = true` (Cargo `[workspace.package] version`). */
  workspaceVersion: string | null;
  /** Its version is the workspace's (Cargo `version.workspace = true`). */
  inheritsVersion: boolean;
  /** Why the file could not be understood, when it could not. */
  problem: string | null;
}

export const MANIFEST_FILES: Record<string, ManifestKind> = {
  'package.json': 'npm',
  'pyproject.toml': 'python',
  'go.mod': 'go',
  'Cargo.toml': 'cargo',
};

/** Files that only declare a workspace; read into the manifest beside them. */
export const WORKSPACE_FILES: Record<string, ManifestKind> = {
  'pnpm-workspace.yaml': 'npm',
  'lerna.json': 'npm',
  'nx.json': 'npm',
  'go.work': 'go',
};

/** Where Lerna looks for packages when `lerna.json` names none. */
const LERNA_DEFAULT = ['packages/*'];

/** Nx's project folders (`workspaceLayout`, by default `apps/` and `libs/`), nested projects included. */
function nxMembers(json: unknown): string[] {
  const layout = table(json, 'workspaceLayout');
  const folders = [stringOr(layout.appsDir) ?? 'apps', stringOr(layout.libsDir) ?? 'libs'];
  return [...new Set(folders)].map((folder) => `${folder.replace(/\/$/, '')}/**`);
}

/** The members a workspace-only file declares, by its name. */
function workspaceMembers(name: string, text: string): string[] {
  if (name === 'go.work') return goWorkMembers(text);
  if (name === 'pnpm-workspace.yaml') return strings(table(parseYaml(text) as unknown).packages);
  const json = JSON.parse(text) as unknown;
  if (name === 'nx.json') return nxMembers(json);
  const packages = strings(table(json).packages);
  return packages.length ? packages : LERNA_DEFAULT;
}

const emptyManifest = (path: string, kind: ManifestKind): Manifest => ({
  path,
  kind,
  name: null,
  version: null,
  description: null,
  scripts: {},
  entryPoints: [],
  dependencies: [],
  peerDependencies: [],
  devDependencies: [],
  tools: [],
  workspaces: [],
  workspaceExcludes: [],
  workspaceVersion: null,
  inheritsVersion: false,
  problem: null,
});

type Table = Record<string, unknown>;
const isRecord = (value: unknown): value is Table =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const keysOf = (value: unknown): string[] => (isRecord(value) ? Object.keys(value) : []);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
/** `table(doc, 'tool', 'poetry')` → doc.tool.poetry when every step is a table, else `{}`. */
const table = (value: unknown, ...keys: string[]): Table => {
  let at = value;
  for (const key of keys) at = isRecord(at) ? at[key] : undefined;
  return isRecord(at) ? at : {};
};

function stringEntries(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function readNpm(manifest: Manifest, text: string): void {
  const json = JSON.parse(text) as unknown;
  if (!isRecord(json)) throw new Error('not a JSON object');
  manifest.name = stringOr(json.name);
  manifest.version = stringOr(json.version);
  manifest.description = stringOr(json.description);
  manifest.scripts = stringEntries(json.scripts);
  const bin = json.bin;
  if (typeof bin === 'string') manifest.entryPoints.push({ field: 'bin', name: manifest.name, target: bin });
  for (const [name, target] of Object.entries(stringEntries(bin)))
    manifest.entryPoints.push({ field: 'bin', name, target });
  const main = stringOr(json.main) ?? stringOr(json.module);
  if (main) manifest.entryPoints.push({ field: 'main', name: null, target: main });
  const exported = isRecord(json.exports) ? json.exports['.'] : json.exports;
  const exportTarget =
    typeof exported === 'string'
      ? exported
      : isRecord(exported)
        ? (stringOr(exported.import) ?? stringOr(exported.default))
        : null;
  if (exportTarget && exportTarget !== main)
    manifest.entryPoints.push({ field: 'exports', name: null, target: exportTarget });
  manifest.peerDependencies = keysOf(json.peerDependencies);
  manifest.dependencies = [...new Set([...keysOf(json.dependencies), ...manifest.peerDependencies])];
  manifest.devDependencies = keysOf(json.devDependencies);
  manifest.workspaces = Array.isArray(json.workspaces)
    ? strings(json.workspaces)
    : strings(table(json, 'workspaces').packages);
}

/** `requests>=2.0; python_version<"3.12"` → `requests`. */
function requirementName(requirement: string): string {
  let end = 0;
  while (end < requirement.length && !'<>=!~;[( '.includes(requirement[end]!)) end++;
  return requirement.slice(0, end);
}

function readPython(manifest: Manifest, text: string): void {
  const doc = parseToml(text);
  const project = table(doc, 'project');
  const poetry = table(doc, 'tool', 'poetry');
  manifest.name = stringOr(project.name) ?? stringOr(poetry.name);
  manifest.version = stringOr(project.version) ?? stringOr(poetry.version);
  manifest.description = stringOr(project.description) ?? stringOr(poetry.description);
  for (const [field, scripts] of [
    ['[project.scripts]', table(project, 'scripts')],
    ['[tool.poetry.scripts]', table(poetry, 'scripts')],
  ] as const) {
    for (const [name, target] of Object.entries(stringEntries(scripts)))
      manifest.entryPoints.push({ field, name, target });
  }
  manifest.dependencies = [
    ...strings(project.dependencies).map(requirementName),
    ...keysOf(poetry.dependencies).filter((d) => d !== 'python'),
  ];
  const optional = Object.values(table(project, 'optional-dependencies')).flatMap(strings);
  const groups = Object.values(table(doc, 'dependency-groups')).flatMap(strings);
  const poetryGroups = Object.values(table(poetry, 'group')).flatMap((group) => keysOf(table(group, 'dependencies')));
  manifest.devDependencies = [
    ...new Set([...optional, ...groups].map(requirementName).concat(poetryGroups, keysOf(poetry['dev-dependencies']))),
  ];
  manifest.tools = Object.keys(table(doc, 'tool'));
}

function readGo(manifest: Manifest, text: string): void {
  let inRequire = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line.startsWith('module ')) manifest.name = line.slice('module '.length).trim();
    else if (line === 'require (') inRequire = true;
    else if (inRequire && line === ')') inRequire = false;
    else if (inRequire && line !== '') manifest.dependencies.push(line.split(/\s+/)[0]!);
    else if (line.startsWith('require ')) manifest.dependencies.push(line.split(/\s+/)[1]!);
  }
}

/** A Cargo dependency table's crate names: a key renamed with `package = "…"` depends on that package. */
function crateNames(value: unknown): string[] {
  return Object.entries(isRecord(value) ? value : {}).map(([key, spec]) =>
    isRecord(spec) ? (stringOr(spec.package) ?? key) : key,
  );
}

function readCargo(manifest: Manifest, text: string): void {
  const doc = parseToml(text);
  const pkg = table(doc, 'package');
  manifest.name = stringOr(pkg.name);
  manifest.version = stringOr(pkg.version);
  manifest.inheritsVersion = table(pkg, 'version').workspace === true;
  manifest.description = stringOr(pkg.description);
  const bins: unknown[] = Array.isArray(doc.bin) ? doc.bin : [];
  for (const bin of bins.filter(isRecord)) {
    const path = stringOr(bin.path) ?? (stringOr(bin.name) ? `src/bin/${String(bin.name)}.rs` : null);
    if (path) manifest.entryPoints.push({ field: '[[bin]]', name: stringOr(bin.name), target: path });
  }
  manifest.dependencies = crateNames(doc.dependencies);
  manifest.devDependencies = [...crateNames(doc['dev-dependencies']), ...crateNames(doc['build-dependencies'])];
  const workspace = table(doc, 'workspace');
  manifest.workspaces = strings(workspace.members);
  manifest.workspaceExcludes = strings(workspace.exclude);
  manifest.workspaceVersion = stringOr(table(workspace, 'package').version);
}

const READERS: Record<ManifestKind, (manifest: Manifest, text: string) => void> = {
  npm: readNpm,
  python: readPython,
  go: readGo,
  cargo: readCargo,
};

/** Read the manifest at `path` (relative to `codebase`); an unreadable or malformed one keeps its problem. */
export function readManifest(codebase: string, path: string): Manifest | undefined {
  const kind = MANIFEST_FILES[basename(path)];
  if (!kind) return undefined;
  const manifest = emptyManifest(path, kind);
  try {
    READERS[kind](manifest, readFileSync(join(codebase, path), 'utf8'));
  } catch (error) {
    return { ...emptyManifest(path, kind), problem: (error as Error).message.split('\n')[0]! };
  }
  return manifest;
}

/** `go.work` `use ./a` / `use ( ./a ./b )` → `['a', 'b']`. */
function goWorkMembers(text: string): string[] {
  const members: string[] = [];
  let inUse = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === 'use (') inUse = true;
    else if (inUse && line === ')') inUse = false;
    else if (inUse && line !== '') members.push(line);
    else if (line.startsWith('use ')) members.push(line.slice(4).trim());
  }
  return members.map((m) => m.replace(/^\.\//, ''));
}

/**
 * The workspace members a workspace-only file at the root declares (`pnpm-workspace.yaml` and
 * `lerna.json` `packages`, `nx.json`'s project folders, `go.work` `use`), or a problem when it cannot be
 * read; undefined for other files.
 */
export function readWorkspaceFile(
  codebase: string,
  path: string,
): { kind: ManifestKind; members: string[]; problem: string | null } | undefined {
  const kind = WORKSPACE_FILES[basename(path)];
  if (!kind) return undefined;
  try {
    const members = workspaceMembers(basename(path), readFileSync(join(codebase, path), 'utf8'));
    return { kind, members, problem: null };
  } catch (error) {
    return { kind, members: [], problem: (error as Error).message.split('\n')[0]! };
  }
}
