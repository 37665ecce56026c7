import fse from 'fs-extra';
import { join, relative, sep } from 'node:path';
import { packageRoot } from '../package-info.js';

/** What of fed's own repository the demo copies as the codebase its team studies. */
const DEMO_SOURCES = ['README.md', 'package.json', 'tsconfig.json', '.gitignore', 'machines', 'src', 'test', 'skills', 'diagrams'];
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.fed']);

/**
 * Copy a real codebase — this project's own sources — into the demo federation, so the built-in agent
 * has something worth documenting. Returns the copied paths (relative to `dir`).
 */
export function copyDemoCodebase(dir: string): string[] {
  const root = packageRoot();
  const copied: string[] = [];
  for (const source of DEMO_SOURCES) {
    const from = join(root, source);
    if (!fse.pathExistsSync(from)) continue;
    fse.copySync(from, join(dir, source), {
      filter: (path) => !relative(root, path).split(sep).some((part) => SKIPPED.has(part)),
    });
    copied.push(source);
  }
  return copied;
}
