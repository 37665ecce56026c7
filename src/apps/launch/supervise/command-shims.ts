import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { DEFAULT_AGENT_COMMAND } from '../../../core/schema/config.js';
import { packageBins, packageRoot } from '../../../infra/package-info.js';
import { builtInAgentBin } from '../builtin-agent.js';

/**
 * A bin folder put first on the agent's PATH with `fed` and `fed-agent`, so the launched agent can run
 * `fed event …` as its prompt says, and the default agentCommand `fed-agent` works from a fresh clone
 * where nothing is installed globally. Each shim runs this very fed (same node, same build), or the
 * fed-agent it depends on (builtin-agent.ts).
 */
export function writeCommandShims(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, script] of Object.entries(shimmedCommands())) {
    const file = join(dir, name);
    writeFileAtomic(file, `#!/bin/sh\nexec ${quote([process.execPath, script])} "$@"\n`, {
      durable: false,
    });
    chmodSync(file, 0o755);
  }
  return dir;
}

/** The commands of the shims, by name: each one's script. */
export function shimmedCommands(): Record<string, string> {
  const root = packageRoot();
  const agent = builtInAgentBin();
  return {
    ...Object.fromEntries(Object.entries(packageBins()).map(([name, script]) => [name, join(root, script)])),
    ...(agent !== undefined && { [DEFAULT_AGENT_COMMAND]: agent }),
  };
}
