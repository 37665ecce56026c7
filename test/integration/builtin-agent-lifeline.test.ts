import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openFederation, runActors } from 'fed';
import { AgentProcess, descendantsOf, getTeam, processIsAlive, readRegistry } from 'fed/testing';
import { builtBin } from '../helpers/fed-cli.js';
import { FIXTURES_DIR, killEach, readPid, waitFor } from '../helpers/fixture-process.js';
import { federationWithMission } from '../helpers/launch-federation.js';
import { writeLaunchContext } from '../helpers/launch-context.js';
import { tempDir } from '../helpers/temp-dir.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

/**
 * fed's built-in agent runs with no watchdog process over it (test/e2e/run-processes.test.ts counts the
 * processes): it holds its launcher's lifeline and ends itself when the launcher is gone, and its launcher
 * does what the watchdog would. Run through test/fixtures/builtin-agent-launcher.mjs (the built library and
 * fed-agent: `npm run build` first), whose broker never answers the agent's first event, so the agent is
 * still running when the launcher is killed or stops it.
 */
const SANDBOX_SUITE = "the built-in agent's sandboxed lifeline cases (need bwrap)";

const alive = (pid: number) => processIsAlive(pid);

/** The launcher fixture, with the built-in agent waiting for its first event's answer: its pids. */
async function launched(sandboxed: boolean) {
  const { root } = await federationWithMission();
  await runActors(openFederation(root), { once: true });
  const context = await writeLaunchContext(root, 'docs', { subject: 'Document the project', body: 'Write it' });
  const workspace = getTeam(readRegistry(root), 'docs').location;
  const launcher = spawn(
    process.execPath,
    [join(FIXTURES_DIR, 'builtin-agent-launcher.mjs'), root, workspace, context, sandboxed ? 'yes' : 'no'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: launcher.stdout! });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))));
  const started = (await next()) as { pid: number };
  // Sandboxed, the agent's pid is bwrap's; fed-agent runs inside, a descendant of it.
  const agentPid = sandboxed
    ? descendantsOf(started.pid).find((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(builtBin('fed-agent'));
        } catch {
          return false;
        }
      })
    : started.pid;
  if (agentPid === undefined) throw new Error(`no fed-agent among the descendants of ${started.pid}`);
  onTestFinished(() => killEach([-started.pid, agentPid, launcher.pid!]));
  return { launcher, pid: started.pid, agentPid, next, workspace };
}

describe.each([
  ['outside the sandbox', false],
  ['in the sandbox', true],
])('the built-in agent, %s, with no watchdog', (_, sandboxed) => {
  it.skipIf(sandboxed && skipWithoutBubblewrap(SANDBOX_SUITE))(
    'ends itself when its launcher is killed with SIGKILL',
    async () => {
      const { launcher, pid, agentPid, workspace } = await launched(sandboxed);
      expect(alive(agentPid)).toBe(true);
      launcher.kill('SIGKILL');
      await waitFor(() => !alive(agentPid) && !alive(pid), 15_000, 'the agent to end with its launcher');
      if (!sandboxed)
        expect(readFileSync(join(workspace, 'agent.log'), 'utf8')).toContain(
          'fed-agent: the launcher is gone; stopping',
        );
    },
    60_000,
  );

  it.skipIf(sandboxed && skipWithoutBubblewrap(SANDBOX_SUITE))(
    'is stopped by its launcher, every process of it gone before the stop returns',
    async () => {
      const { launcher, pid, agentPid, next } = await launched(sandboxed);
      launcher.stdin!.write('stop\n');
      const { stopped } = (await next()) as { stopped: { code: number | null; signal: string | null } };
      expect(alive(agentPid)).toBe(false);
      expect(alive(pid)).toBe(false);
      // fed-agent has no SIGTERM handler: it ends at once (in the sandbox, its init passes that on as 143).
      expect(stopped).toEqual(sandboxed ? { code: 143, signal: null } : { code: null, signal: 'SIGTERM' });
    },
    60_000,
  );
});

describe('an agent that ends with its launcher, run with no watchdog', () => {
  it('what it left in its process group is stopped before its exit is passed on', async () => {
    const dir = tempDir();
    const marker = join(dir, 'left.pid');
    // Leaves a process in its group that would write a minute later, and exits.
    const agent = `
      const { spawn } = require('node:child_process');
      const left = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(left.pid));
      left.unref();
    `;
    const started = await AgentProcess.start({
      command: [process.execPath, '-e', agent],
      cwd: dir,
      env: process.env,
      logFile: join(dir, 'agent.log'),
      stdin: null,
      graceMs: 2_000,
      endsWithLauncher: true,
    });
    const exit = await started.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(alive(readPid(marker))).toBe(false);
  });
});
