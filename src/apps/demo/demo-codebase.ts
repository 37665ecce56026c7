import fse from 'fs-extra';
import { join, relative, sep } from 'node:path';
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
