import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_AGENT_COMMAND } from '../../../core/schema/config.js';
import { packageBins, packageRoot } from '../../../infra/package-info.js';

/**
 * Whether the agent command runs this package's `fed-agent` — fed's own code, which ends itself with its
 * launcher and reads the federation through the backend itself: the bare name, which the launch-bin shim
 * (first on the agent's PATH, `launchBin`) resolves to this very fed — unless the command sets a PATH of
 * its own — or a path (from `cwd`) to that shim or to this package's executable. Another install's
 * fed-agent, or a user's wrapper of that name, is any other agent: it runs under the watchdog.
 */
export function isBuiltInAgent(
  argv: readonly string[],
  where: { cwd: string; launchBin: string; commandEnv?: NodeJS.ProcessEnv },
): boolean {
  const program = argv[0] ?? '';
  if (program === DEFAULT_AGENT_COMMAND) return where.commandEnv?.PATH === undefined;
  if (!program.includes('/')) return false;
  const target = real(resolve(where.cwd, program));
  const bin = packageBins()[DEFAULT_AGENT_COMMAND];
  return (
    target === real(join(where.launchBin, DEFAULT_AGENT_COMMAND)) ||
    (bin !== undefined && target === real(join(packageRoot(), bin)))
  );
}

/** The path with its links resolved, or as given when it does not exist. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
