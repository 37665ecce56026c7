import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { RefusedError } from '../../../core/errors.js';
import { packageRoot } from '../../../infra/package-info.js';

/**
 * The page's files (`dist/ui/`, bundled by `npm run build`): `index.html`, the shell every page route
 * serves, and the rest under `/assets/`. Found beside fed's own package, as fed finds its other files.
 */
export interface UiAssets {
  shell: Buffer;
  /** A file of the folder by its path under `/assets/`; undefined when there is none (or it leads outside). */
  file(path: string): { body: Buffer; type: string } | undefined;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export function defaultAssetsDir(): string {
  return join(packageRoot(), 'dist', 'ui');
}

export function loadUiAssets(dir = defaultAssetsDir()): UiAssets {
  const root = resolve(dir);
  const index = join(root, 'index.html');
  if (!existsSync(index))
    throw new RefusedError(
      'UI_NOT_BUILT',
      `the dashboard's page is not built (no ${index}); build it with: npm run build`,
    );
  const shell = readFileSync(index);
  return {
    shell,
    file(path) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        return undefined;
      }
      const full = resolve(root, `.${sep}${decoded}`);
      if (!full.startsWith(`${root}${sep}`) || decoded.includes('\0')) return undefined;
      const body = readAsset(full);
      return body && { body, type: TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream' };
    },
  };
}

/**
 * A regular file's bytes, or undefined for anything that is not one: missing, a folder, or a path through
 * a file (`app.js/x`: ENOTDIR), answered 404 and never an error that names the folder.
 */
function readAsset(full: string): Buffer | undefined {
  try {
    return statSync(full, { throwIfNoEntry: false })?.isFile() ? readFileSync(full) : undefined;
  } catch {
    return undefined;
  }
}
