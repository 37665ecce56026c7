import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { RefusedError } from '../core/errors.js';
import { federationPaths } from '../core/layout.js';
import { ensureDirectory } from '../infra/fs/ensure-directory.js';
import { resolvePath } from '../infra/fs/resolve-path.js';
import type { WriteOptions } from '../infra/fs/atomic-write.js';

/**
 * The runtime folders of the federation root — meta's signal boxes, the delivery facts, the registry and
 * federation journal in `.fed/`, onboarding intents, chat, the folders teams' workspaces are made in — are
 * written by fed only where they lie: a folder that is (or goes through) a symbolic link would have fed
 * write outside the root, or into the codebase, on an agent's behalf. Before a write each folder is resolved
 * once per Federation context (one realpath, which resolves every link from the root down, so it also
 * vouches for the folders above it); a folder that does not resolve to itself is refused with the link.
 * Never shared across processes.
 */
export class CheckedRootFolders {
  /** Folders (and the folders above them, up to the root) that resolved to themselves in this context. */
  private readonly verified = new Set<string>();
  private realRoot: string | undefined;

  constructor(private readonly root: string) {}

  /** Right before a write into `folder` (below the root's `.fed/`): refused when a link leads into it. */
  beforeWrite(folder: string): void {
    this.check(folder);
  }

  /** `beforeWrite`, then `folder` created (durably) when it is not there yet. */
  folderForWrite(folder: string, options: WriteOptions = {}): void {
    if (!this.check(folder)) ensureDirectory(folder, options);
  }

  /** True when `folder` exists (and resolved where it lies); false when it is missing (and what is above it did). */
  private check(folder: string): boolean {
    if (this.verified.has(folder)) return true;
    const found = resolvePath(folder);
    if (found.danglingLink !== undefined) throw runtimeLink(this.root, found.danglingLink, 'a missing target');
    // The root itself may lie below a link (a temp folder, a home folder): it is compared resolved.
    if (found.real !== folder && found.real !== join(this.realRootPath(), relative(this.root, folder)))
      throw runtimeLink(this.root, folder, found.real);
    if (found.exists) this.vouchFor(folder);
    return found.exists;
  }

  private vouchFor(dir: string): void {
    for (let up = dir; up.length >= this.root.length && !this.verified.has(up); up = dirname(up)) {
      this.verified.add(up);
      if (dirname(up) === up) break;
    }
  }

  private realRootPath(): string {
    return (this.realRoot ??= realpathSync(this.root));
  }
}

/** The refusal of a runtime folder of the root that goes through a link: names the link itself and where it leads. */
export function runtimeLink(root: string, folder: string, target: string): RefusedError {
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
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
