import { join, resolve } from 'node:path';
import { DEFAULT_AGENT_COMMAND } from '../../core/schema/config.js';
import { realPathOr } from '../../infra/fs/path-kind.js';
import { dependencyBins } from '../../infra/package-info.js';

/**
 * The built-in agent's executable: the bin of the package fed-agent (packages/fed-agent), a program of its
 * own that fed depends on and launches like any agent program; undefined when it is not installed.
 */
export function builtInAgentBin(): string | undefined {
  return dependencyBins(DEFAULT_AGENT_COMMAND)[DEFAULT_AGENT_COMMAND];
}

/**
 * Whether the agent command runs the `fed-agent` this fed depends on — which ends itself with its launcher
 * and reads the federation through the backend itself: the bare name, which the launch-bin shim (first on
 * the agent's PATH, `launchBin`) resolves to that very fed-agent — unless the command sets a PATH of its
 * own — or a path (from `cwd`) to that shim or to its executable. Another install's fed-agent, or a
 * user's wrapper of that name, is any other agent: it runs under the watchdog.
 */
export function isBuiltInAgent(
  argv: readonly string[],
  where: { cwd: string; launchBin: string; commandEnv?: NodeJS.ProcessEnv },
): boolean {
  const program = argv[0] ?? '';
  if (program === DEFAULT_AGENT_COMMAND) return where.commandEnv?.PATH === undefined;
  if (!program.includes('/')) return false;
  const target = realPathOr(resolve(where.cwd, program));
  const bin = builtInAgentBin();
  return (
    target === realPathOr(join(where.launchBin, DEFAULT_AGENT_COMMAND)) ||
    (bin !== undefined && target === realPathOr(bin))
  );
}
