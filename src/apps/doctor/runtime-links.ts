import { lstatSync } from 'node:fs';
import { sep } from 'node:path';
import { federationPaths, pathEntries, workspacePaths } from '../../core/layout.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import { backendRuntimePaths } from '../../adapters/index.js';

/**
 * The runtime paths fed writes (docs/design/spec.md §4.1) that are symbolic links: fed refuses to write
 * through them (RUNTIME_FOLDER_SYMLINK, WORKSPACE_SYMLINK) — a link there would have it write outside
 * the root or into the codebase — so each is a finding. None is repaired: what a link points to is not
 * fed's to move or remove, and `--fix` never reads or removes anything below one.
 */
export function findRootLinks(root: string): PendingFinding[] {
  const meta = federationPaths(root);
  // `.fed/teams` and `.fed/worktrees` are reported by the orphan-workspace check.
  const rootPaths = [
    ...Object.values(meta),
    ...pathEntries(workspacePaths(root)).map(([, path]) => path),
    ...backendRuntimePaths(root, true),
  ].filter((path) => path !== root && path !== meta.teams && path !== meta.worktrees);
  return linksAmong(rootPaths).map((path) => linkFinding(path));
}

/** The same in a team's workspace inside the root — the workspace itself included. */
export function findWorkspaceLinks(team: RegistryEntry): PendingFinding[] {
  const paths = [
    ...pathEntries(workspacePaths(team.location)).map(([, path]) => path),
    ...backendRuntimePaths(team.location, false),
  ];
  return linksAmong(paths).map((path) => linkFinding(path, team.domainId));
}

/** True when `path` is one of `links` or lies below one: nothing there is fed's to read or remove. */
export function belowLink(path: string, links: readonly PendingFinding[]): boolean {
  return links.some((link) => path === link.path || path.startsWith(`${link.path}${sep}`));
}

/** The links among `paths`, outermost only: below a link everything is the link's target. */
function linksAmong(paths: readonly string[]): string[] {
  const links: string[] = [];
  for (const path of [...new Set(paths)].sort((a, b) => a.length - b.length)) {
    if (links.some((link) => path.startsWith(`${link}${sep}`))) continue;
    if (isLink(path)) links.push(path);
  }
  return links;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch (error) {
    // A part of the path is a file (a team's inbox replaced by one): nothing is there, a link neither; the
    // check that reads that folder reports the file.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}

function linkFinding(path: string, team?: string): PendingFinding {
  return {
    check: 'runtime-link',
    ...(team === undefined ? {} : { team }),
    path,
    problem: `${path} is a symbolic link; fed writes its runtime files only where they lie and refuses to write through it`,
    fix: 'replace the link with a real folder or file (move back what fed keeps there, if anything); fed doctor --fix never follows or removes it',
  };
}
