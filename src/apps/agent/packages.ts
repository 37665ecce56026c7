import { dirname, posix } from 'node:path';
import picomatch from 'picomatch';
import type { EntryPoint } from './entry-points.js';
import type { Manifest, ManifestKind } from './manifests.js';

/**
 * The repository's own packages, when it has several (a monorepo): npm/pnpm/yarn workspace members, the
 * members of a Cargo workspace (and its root crate, if it is one), every Go module (`go.mod`) and every
 * Python project (`pyproject.toml`). All of it is read from manifests, so the package graph — which
 * package depends on which, by the names they declare — is as certain as the manifests are.
 */
export interface CodePackage {
  name: string;
  /** Its folder, `.` for the root. */
  path: string;
  kind: ManifestKind;
  manifest: string;
  description: string | null;
  /** Entry points inside its folder (and not inside a nested package's). */
  entryPoints: string[];
  dependencies: number;
  devDependencies: number;
}

export interface PackageEdge {
  from: string;
  to: string;
  /** Only a development dependency. */
  dev: boolean;
}

export interface Packages {
  /** What declares the set: `package.json workspaces`, `pnpm-workspace.yaml`, `Cargo.toml [workspace]`, `go.mod files`… */
  declaredBy: string[];
  list: CodePackage[];
  /** Between the repository's own packages, by name. */
  edges: PackageEdge[];
}

export interface WorkspaceDeclaration {
  /** The file that declares the members. */
  file: string;
  kind: ManifestKind;
  /** Member folder patterns, relative to the codebase. */
  members: string[];
  /** Folder patterns left out of the workspace. */
  excluded: string[];
}

/** Python distribution names compare case-insensitively with `-`, `_` and `.` alike (PEP 503). */
const normalName = (kind: ManifestKind, name: string) =>
  kind === 'python' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;

function dependsOn(kind: ManifestKind, dependency: string, target: CodePackage): boolean {
  if (kind !== target.kind) return false;
  if (kind === 'go') return dependency === target.name || dependency.startsWith(`${target.name}/`);
  return normalName(kind, dependency) === normalName(kind, target.name);
}

export function findPackages(
  manifests: readonly Manifest[],
  declarations: readonly WorkspaceDeclaration[],
  entryPoints: readonly EntryPoint[],
): Packages {
  const pattern = (globs: readonly string[]) => picomatch(globs.map((g) => posix.normalize(g).replace(/\/$/, '')));
  const members = declarations.map((d) => ({ ...d, match: pattern(d.members), excludes: pattern(d.excluded) }));
  const chosen = manifests.filter((m) => {
    if (m.problem || !m.name) return false;
    const dir = dirname(m.path);
    if (m.kind === 'go' || m.kind === 'python') return true;
    if (m.kind === 'cargo' && dir === '.') return m.workspaces.length > 0; // a workspace root that is a crate too
    return dir !== '.' && members.some((d) => d.kind === m.kind && d.match(dir) && !d.excludes(dir));
  });
  const folders = chosen.map((m) => dirname(m.path));
  const owner = (path: string) =>
    folders.filter((dir) => dir === '.' || path.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)[0];
  const list: CodePackage[] = chosen.map((m) => ({
    name: m.name!,
    path: dirname(m.path),
    kind: m.kind,
    manifest: m.path,
    description: m.description,
    entryPoints: entryPoints.filter((e) => owner(e.path) === dirname(m.path)).map((e) => e.path),
    dependencies: m.dependencies.length,
    devDependencies: m.devDependencies.length,
  }));
  const edges: PackageEdge[] = [];
  chosen.forEach((m, i) => {
    const runtime = new Set(m.dependencies);
    for (const target of list) {
      if (target === list[i]) continue;
      const uses = [...m.dependencies, ...m.devDependencies].filter((d) => dependsOn(m.kind, d, target));
      if (uses.length) edges.push({ from: list[i]!.name, to: target.name, dev: !uses.some((d) => runtime.has(d)) });
    }
  });
  const declaredBy = [...declarations.map((d) => d.file)];
  if (chosen.filter((m) => m.kind === 'go').length > 1 && !declarations.some((d) => d.kind === 'go'))
    declaredBy.push('several go.mod files');
  if (chosen.filter((m) => m.kind === 'python').length > 1) declaredBy.push('several pyproject.toml files');
  return {
    declaredBy,
    list: list.sort((a, b) => a.path.localeCompare(b.path)),
    edges: edges.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
  };
}
