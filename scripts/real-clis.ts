/**
 * `npm run real-clis`: installs the real agent CLIs the real-CLI tests drive (test/real-clis: their own
 * manifest and lock, out of the root install), as .ci/run does, and says which versions are there.
 * Bumping one is a one-line change to test/real-clis/package.json and its lock (`npm install <cli>@<v>` in
 * that folder); the tests then show what the new release does differently.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePinnedInstall } from '../test/helpers/pinned-install.js';
import { REAL_CLIS_DIR, realCli } from '../test/helpers/real-clis.js';

ensurePinnedInstall(REAL_CLIS_DIR);
const manifest = JSON.parse(readFileSync(join(REAL_CLIS_DIR, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
for (const name of ['claude', 'codex', 'gemini', 'copilot', 'opencode'] as const) {
  const version = spawnSync(realCli(name), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  process.stdout.write(
    `${name}: ${version.status === 0 ? version.stdout.split('\n')[0] : `does not run (${version.stderr.trim()})`}\n`,
  );
}
process.stdout.write(
  `pinned in test/real-clis/package.json: ${Object.entries(manifest.dependencies)
    .map(([n, v]) => `${n}@${v}`)
    .join(', ')}\n`,
);
