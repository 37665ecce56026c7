import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A manifest of fed's tests kept out of the root install (test/node-lines, test/real-clis,
 * test/mutation): its own package.json and lockfile pin exact versions and digests; `npm ci` installs
 * them in its folder the first time they are needed, and again only when the lock pins other versions
 * than the folder holds — so bumping a version is a one-line change to the manifest and its lock.
 */
export function ensurePinnedInstall(
  dir: string,
  npmArgs: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (installedAsPinned(dir)) return;
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', ...npmArgs], {
    cwd: dir,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (install.status !== 0 || !installedAsPinned(dir))
    throw new Error(`installing the pinned packages of ${dir} failed (npm ci exited ${install.status})`);
}

/** Whether each dependency the manifest names is installed at the version its lock pins. */
function installedAsPinned(dir: string): boolean {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  return Object.keys(manifest.dependencies).every((name) => {
    try {
      const installed = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      return installed.version === lock.packages[`node_modules/${name}`]?.version;
    } catch {
      return false;
    }
  });
}
