import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseTomlSubset, type TomlTable } from './toml-subset.js';

/**
 * Build manifests of the ecosystems a survey recognises, reduced to what a newcomer needs: the project's
 * name and purpose, its commands, where it starts and what it depends on.
 */
export type ManifestKind = 'npm' | 'python' | 'go' | 'cargo';

export interface Manifest {
  path: string;
  kind: ManifestKind;
  name: string | null;
  description: string | null;
  /** npm `scripts`; empty for the others. */
  scripts: Record<string, string>;
  /** Declared entry points: the manifest field (npm `bin`/`main`/`exports`, Python `[project.scripts]`, Cargo `[[bin]]`), the command name it gives, and the file or module it names. */
  entryPoints: { field: string; name: string | null; target: string }[];
  dependencies: string[];
  devDependencies: string[];
  /** Python `[tool.*]` tables (pytest, ruff, poetry…): the tools the project configures. */
  tools: string[];
  /** Why the file could not be understood, when it could not. */
  problem: string | null;
}

export const MANIFEST_FILES: Record<string, ManifestKind> = {
  'package.json': 'npm',
  'pyproject.toml': 'python',
  'go.mod': 'go',
  'Cargo.toml': 'cargo',
};

const emptyManifest = (path: string, kind: ManifestKind): Manifest => ({
  path, kind, name: null, description: null, scripts: {}, entryPoints: [], dependencies: [], devDependencies: [], tools: [], problem: null,
});

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const keysOf = (value: unknown): string[] => (isRecord(value) ? Object.keys(value) : []);

function stringEntries(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function readNpm(manifest: Manifest, text: string): void {
  const json = JSON.parse(text) as unknown;
  if (!isRecord(json)) throw new Error('not a JSON object');
  manifest.name = stringOr(json.name);
  manifest.description = stringOr(json.description);
  manifest.scripts = stringEntries(json.scripts);
  const bin = json.bin;
  if (typeof bin === 'string') manifest.entryPoints.push({ field: 'bin', name: manifest.name, target: bin });
  for (const [name, target] of Object.entries(stringEntries(bin))) manifest.entryPoints.push({ field: 'bin', name, target });
  const main = stringOr(json.main) ?? stringOr(json.module);
  if (main) manifest.entryPoints.push({ field: 'main', name: null, target: main });
  const exported = isRecord(json.exports) ? json.exports['.'] : json.exports;
  const exportTarget = typeof exported === 'string' ? exported : isRecord(exported) ? stringOr(exported.import) ?? stringOr(exported.default) : null;
  if (exportTarget && exportTarget !== main) manifest.entryPoints.push({ field: 'exports', name: null, target: exportTarget });
  manifest.dependencies = keysOf(json.dependencies);
  manifest.devDependencies = keysOf(json.devDependencies);
}

/** `requests>=2.0; python_version<"3.12"` → `requests`. */
function requirementName(requirement: string): string {
  let end = 0;
  while (end < requirement.length && !'<>=!~;[( '.includes(requirement[end]!)) end++;
  return requirement.slice(0, end);
}

function readPython(manifest: Manifest, text: string): void {
  const { tables } = parseTomlSubset(text);
  const project: TomlTable = tables.project ?? {};
  const poetry: TomlTable = tables['tool.poetry'] ?? {};
  manifest.name = stringOr(project.name) ?? stringOr(poetry.name);
  manifest.description = stringOr(project.description) ?? stringOr(poetry.description);
  for (const field of ['project.scripts', 'tool.poetry.scripts']) {
    for (const [name, target] of Object.entries(tables[field] ?? {})) if (typeof target === 'string') manifest.entryPoints.push({ field: `[${field}]`, name, target });
  }
  const requirements = Array.isArray(project.dependencies) ? project.dependencies : [];
  manifest.dependencies = [...requirements.map(requirementName), ...keysOf(tables['tool.poetry.dependencies']).filter((d) => d !== 'python')];
  const optional = Object.values(tables['project.optional-dependencies'] ?? {}).flatMap((v) => (Array.isArray(v) ? v : []));
  manifest.devDependencies = [...optional.map(requirementName), ...keysOf(tables['tool.poetry.group.dev.dependencies'])];
  manifest.tools = [...new Set(Object.keys(tables).filter((t) => t.startsWith('tool.')).map((t) => t.split('.')[1]!))];
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

function readCargo(manifest: Manifest, text: string): void {
  const { tables, arrays } = parseTomlSubset(text);
  const pkg: TomlTable = tables.package ?? {};
  manifest.name = stringOr(pkg.name);
  manifest.description = stringOr(pkg.description);
  for (const bin of arrays.bin ?? []) {
    const path = stringOr(bin.path);
    if (path) manifest.entryPoints.push({ field: '[[bin]]', name: stringOr(bin.name), target: path });
  }
  manifest.dependencies = keysOf(tables.dependencies);
  manifest.devDependencies = keysOf(tables['dev-dependencies']);
}

const READERS: Record<ManifestKind, (manifest: Manifest, text: string) => void> = { npm: readNpm, python: readPython, go: readGo, cargo: readCargo };

/** Read the manifest at `path` (relative to `codebase`); an unreadable or malformed one keeps its problem. */
export function readManifest(codebase: string, path: string): Manifest | undefined {
  const kind = MANIFEST_FILES[basename(path)];
  if (!kind) return undefined;
  const manifest = emptyManifest(path, kind);
  try {
    READERS[kind](manifest, readFileSync(join(codebase, path), 'utf8'));
  } catch (error) {
    return { ...emptyManifest(path, kind), problem: (error as Error).message };
  }
  return manifest;
}
