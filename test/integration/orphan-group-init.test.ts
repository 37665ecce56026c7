import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../helpers/loud-skip.js';

/**
 * A run record naming pid 1 — the init of the pid namespace fed runs in, as a container's first process
 * is — is never taken for an orphaned agent's supervisor: stopping its group would be kill(-1), every
 * process there is. Run where it can do no harm: the built library, as pid 1 of a pid namespace of its
 * own, with a child beside it. Broken, the stop would kill that child and then wait for itself forever.
 */
const SUITE = 'stopping an orphaned agent never takes pid 1 for its supervisor';
const ORPHAN_AGENT = fileURLToPath(new URL('../../dist/src/apps/launch/prepare/orphan-agent.js', import.meta.url));
const PROCESS_IDENTITY = fileURLToPath(new URL('../../dist/src/infra/fs/process-identity.js', import.meta.url));

/** unshare's options for a pid namespace of its own (with a user namespace when not root), ended with it. */
const UNSHARE = [
  ...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']),
  '--pid',
  '--fork',
  '--mount-proc',
  '--kill-child',
];

function unshareMissing(): string | undefined {
  try {
    execFileSync('unshare', [...UNSHARE, 'true'], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `unshare cannot make a pid namespace here (util-linux; as root, or with user namespaces): ${(error as Error).message.split('\n')[0]}`;
  }
}

const AS_INIT = `
import { spawn } from 'node:child_process';
import { stopOrphanGroup } from ${JSON.stringify(ORPHAN_AGENT)};
import { processIsAlive } from ${JSON.stringify(PROCESS_IDENTITY)};
const beside = spawn('sleep', ['30'], { stdio: 'ignore' });
await new Promise((resolve) => beside.once('spawn', resolve));
const stopped = await stopOrphanGroup(1, null, 200);
console.log(JSON.stringify({ pid: process.pid, stopped, besideAlive: processIsAlive(beside.pid) }));
beside.kill('SIGKILL');
process.exit(0);
`;

describe.skipIf(skipWithout(SUITE, unshareMissing()))(SUITE, () => {
  it('a record of pid 1 is no running agent: nothing is signalled', async () => {
    const { stdout } = await promisify(execFile)(
      'unshare',
      [...UNSHARE, process.execPath, '--input-type=module', '-e', AS_INIT],
      { timeout: 20_000, killSignal: 'SIGKILL' },
    );
    expect(JSON.parse(stdout)).toEqual({ pid: 1, stopped: false, besideAlive: true });
  });
});
