import fse from 'fs-extra';
import { mkdirSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { packageRoot } from '../../infra/package-info.js';

/**
 * The codebase the demo federation studies: a small npm-workspaces monorepo made of real code — three of
 * fed's own source folders, each as a package with its own manifest — so `fed plan` finds three areas
 * (one per package) and the three teams have real code to document.
 */
export const DEMO_PACKAGES = [
  {
    name: 'signals',
    from: 'src/adapters/file/signals',
    main: 'send-signal.ts',
    description: 'File-based signal transport: send, read, acknowledge and watch typed signals',
  },
  {
    name: 'registry',
    from: 'src/engine/registry',
    main: 'update-registry.ts',
    description: 'Team registry with optimistic concurrency, onboarding and workspace placement',
  },
  {
    name: 'launch',
    from: 'src/apps/launch',
    main: 'launch-team.ts',
    description: "Launching a team's agent, supervised by its lifecycle",
  },
] as const;

/**
 * Make `dir` the demo's folder (`fed demo --dir`): created, or one that exists and is empty. The demo
 * writes a codebase and a federation there and runs every team registered in it, so a folder with
 * anything in it — a project, a federation — is refused before anything is written.
 */
export function makeDemoFolder(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new InvalidInputError(`--dir ${dir}: not a folder; give a new or empty folder`);
    if (code !== 'ENOENT') throw unusableFolder(dir, error);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (mkdirError) {
      throw unusableFolder(dir, mkdirError);
    }
    return;
  }
  if (names.length > 0)
    throw new InvalidInputError(
      `--dir ${dir} is not empty (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}): the demo writes a sample codebase and a federation there and runs every team in it; give a new or empty folder, or leave out --dir for a temp one`,
    );
}

function unusableFolder(dir: string, error: unknown): InvalidInputError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new InvalidInputError(`--dir ${dir}: cannot be used (${reason}); give a new or empty folder you can write to`);
}

/** Write the sample monorepo into `dir`; returns its package folders (relative to `dir`). */
export function writeDemoCodebase(dir: string): string[] {
  const root = packageRoot();
  writeFileAtomic(
    join(dir, 'package.json'),
    toJsonText({
      name: 'fed-sample',
      private: true,
      description: 'A sample monorepo for the fed demo',
      workspaces: ['packages/*'],
    }),
  );
  writeFileAtomic(
    join(dir, 'README.md'),
    "# fed-sample\n\nA sample monorepo for the fed demo: three packages taken from fed's own sources.\n",
  );
  return DEMO_PACKAGES.map((pkg) => {
    const folder = join('packages', pkg.name);
    fse.copySync(join(root, pkg.from), join(dir, folder, 'src'), {
      filter: (path) => !relative(root, path).split(sep).includes('node_modules'),
    });
    writeFileAtomic(
      join(dir, folder, 'package.json'),
      toJsonText({ name: `@fed-sample/${pkg.name}`, description: pkg.description, main: `src/${pkg.main}` }),
    );
    return folder;
  });
}
