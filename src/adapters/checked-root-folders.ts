import { lstatSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { RefusedError } from '../core/errors.js';
import { federationPaths } from '../core/layout.js';
import { ensureDirectory } from '../infra/fs/ensure-directory.js';
import { resolvePath } from '../infra/fs/resolve-path.js';
import type { WriteOptions } from '../infra/fs/atomic-write.js';

/**
 * The runtime folders of the federation root — meta's signal boxes, the delivery facts, the registry and
 * federation journal in `.fed/`, onboarding intents, chat, the folders teams' workspaces are made in — are
 * written by fed only where they lie: a folder that is (or goes through) a symbolic link would have fed
 * write outside the root, or into the codebase, on an agent's behalf (a sandboxed agent may write the
 * root's `.fed/`). Right before each write its folder is resolved — one realpath, which resolves every link
 * from the root down — and refused, naming the link, unless it resolves to itself. `.fed/` itself is
 * checked once per Federation context (any folder below it that resolved vouches for it): it holds every
 * workspace, and an agent cannot replace it (the sandbox mounts it). Never shared across processes.
 */
export class CheckedRootFolders {
  private readonly fedDir: string;
  /** `.fed/` resolved to itself in this context. */
  private fedDirChecked = false;
  private realRoot: string | undefined;

  constructor(private readonly root: string) {
    this.fedDir = federationPaths(root).fedDir;
  }

  /** Right before a write into `folder` (below the root's `.fed/`): refused when a link leads into it. */
  beforeWrite(folder: string): void {
    this.check(folder);
  }

  /** `beforeWrite`, then `folder` created (durably) when it is not there yet. */
  folderForWrite(folder: string, options: WriteOptions = {}): void {
    // A file where the folder belongs is not there to the check, so ensureDirectory refuses it (ENOTDIR) here,
    // not the first write into it: a claim written beside a send's copies must fail before they are published.
    if (!this.check(folder)) ensureDirectory(folder, options);
  }

  /** True when `folder` exists (and resolved where it lies); false when it is missing (and what is above it did). */
  private check(folder: string): boolean {
    if (folder === this.fedDir && this.fedDirChecked) return true;
    const found = resolvePath(folder);
    if (found.danglingLink !== undefined) throw runtimeLink(this.root, found.danglingLink, 'a missing target');
    // The root itself may lie below a link (a temp folder, a home folder): it is compared resolved.
    if (found.real !== folder && found.real !== join(this.realRootPath(), relative(this.root, folder)))
      throw runtimeLink(this.root, folder, found.real);
    if (found.exists && (folder === this.fedDir || folder.startsWith(`${this.fedDir}${sep}`)))
      this.fedDirChecked = true;
    return found.exists;
  }

  private realRootPath(): string {
    return (this.realRoot ??= realpathSync.native(this.root));
  }
}

/** The refusal of a runtime folder of the root that goes through a link: names the link itself and where it leads. */
function runtimeLink(root: string, folder: string, target: string): RefusedError {
  const link = firstLinkBelow(root, folder) ?? folder;
  return new RefusedError(
    'RUNTIME_FOLDER_SYMLINK',
    `fed's runtime folder ${folder} goes through a symbolic link: ${link} → ${realTarget(link) ?? target}; fed never writes through a link — ` +
      `replace the link with a real directory (move back what fed keeps there), then retry; fed doctor lists every such link`,
  );
}

/** The first folder from the root's `.fed/` down to `folder` that is a symbolic link. */
function firstLinkBelow(root: string, folder: string): string | undefined {
  const fedDir = federationPaths(root).fedDir;
  const rel = relative(fedDir, folder);
  const parts = rel === '' ? [] : rel.split(sep);
  for (let i = 0, dir = fedDir; i <= parts.length; dir = join(dir, parts[i] ?? ''), i++) {
    try {
      if (lstatSync(dir).isSymbolicLink()) return dir;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function realTarget(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
