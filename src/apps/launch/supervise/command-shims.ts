import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import { packageBins, packageRoot } from '../../../infra/package-info.js';

/**
 * A bin folder put first on the agent's PATH with `fed` and `fed-agent`, so the launched agent can run
 * `fed event …` as its prompt says, and the default agentCommand `fed-agent` works from a fresh clone
 * where nothing is installed globally. Each shim runs this very fed (same node, same build).
 */
export function writeCommandShims(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const root = packageRoot();
  for (const [name, script] of Object.entries(packageBins())) {
    const file = join(dir, name);
    writeFileAtomic(file, `#!/bin/sh\nexec ${quote([process.execPath, join(root, script)])} "$@"\n`, {
      durable: false,
    });
    chmodSync(file, 0o755);
  }
  return dir;
}
