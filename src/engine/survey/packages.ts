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
  /** The version it publishes, when its manifest (or its Cargo workspace) gives one. */
  version: string | null;
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

/** How a manifest declares a dependency: needed at run time, installed beside it (npm peer), or to develop. */
export type DependencyKind = 'runtime' | 'peer' | 'dev';

export interface PackageEdge {
  from: string;
  to: string;
  /** Only a development dependency. */
  dev: boolean;
  /** Every way `from` declares `to`, in this order: runtime, peer, dev. */
  kinds: DependencyKind[];
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
  // `version.workspace = true`: the version of the Cargo workspace the crate is a member of.
  const workspaceVersion = manifests.find((m) => m.kind === 'cargo' && m.workspaceVersion)?.workspaceVersion ?? null;
  const list: CodePackage[] = chosen.map((m) => ({
    name: m.name!,
    version: m.version ?? (m.inheritsVersion ? workspaceVersion : null),
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
    const peer = new Set(m.peerDependencies);
    const declared: [DependencyKind, string[]][] = [
      ['runtime', m.dependencies.filter((d) => !peer.has(d))],
      ['peer', m.peerDependencies],
      ['dev', m.devDependencies],
    ];
    for (const target of list) {
      if (target === list[i]) continue;
      const kinds = declared.filter(([, names]) => names.some((d) => dependsOn(m.kind, d, target))).map(([k]) => k);
      if (kinds.length)
        edges.push({ from: list[i]!.name, to: target.name, dev: kinds.every((k) => k === 'dev'), kinds });
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
