import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from 'fed/testing';
import { skipWithout } from './loud-skip.js';

/**
 * The real agent CLIs fed's presets drive, pinned in test/real-clis (its own manifest and lock: their
 * native binaries are hundreds of MB, kept out of the root install). `npm run real-clis` installs them
 * there, and .ci/run does before the suite; without them the real-CLI tests skip loudly (under CI they fail).
 */
export const REAL_CLIS_DIR = join(packageRoot(), 'test/real-clis');

/** The installed real CLI's executable. */
export function realCli(name: 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode'): string {
  // opencode is pinned as its platform binary package (see the manifest's description), which has no bin link.
  if (name === 'opencode') return join(REAL_CLIS_DIR, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
  return join(REAL_CLIS_DIR, 'node_modules', '.bin', name);
}

/** Why the real `name` cannot run here, or undefined when it answers `--version`. */
export function realCliMissing(name: Parameters<typeof realCli>[0]): string | undefined {
  const version = spawnSync(realCli(name), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status === 0) return undefined;
  return `the real ${name} is not installed in test/real-clis (install it: npm run real-clis)${version.error ? `: ${version.error.message}` : ''}`;
}

/** `describe.skipIf(skipWithoutRealCli(SUITE, 'claude'))`: skipped loudly without it; under CI never. */
export function skipWithoutRealCli(suite: string, name: Parameters<typeof realCli>[0]): boolean {
  return skipWithout(suite, realCliMissing(name));
}
