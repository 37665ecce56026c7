import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AgentProcess, SpareWatchdogs } from 'fed/testing';

import { FIXTURES_DIR, killEach, readPid, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * How the process `pid` stands, read from /proc: `gone`, `exited` (a zombie its parent has not collected)
 * or its state letter — read in one go, so a process collected as it is looked at reads as gone.
 */
function standing(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
    return state === 'Z' ? 'exited' : `running (${state}, ${stat.slice(stat.indexOf('('), stat.lastIndexOf(')') + 1)})`;
  } catch {
    return 'gone';
  }
}
const ended = (pid: number) => ['gone', 'exited'].includes(standing(pid));

/**
 * An agent (`node -e ''`) in test/fixtures/fake-bwrap.mjs, given `options`, run by the launcher as fed-agent
 * or under the watchdog: one started for it, or a spare started ahead (`spare`, as `fed serve` keeps them).
 */
async function inFakeSandbox(
  dir: string,
  endsWithLauncher: boolean,
  spare: boolean,
  options: string[] = [],
): Promise<AgentProcess> {
  const watchdogs = spare ? new SpareWatchdogs() : undefined;
  onTestFinished(() => watchdogs?.close());
  return AgentProcess.start({
    command: [process.execPath, '-e', ''],
    wrapper: () => ({ argv: [process.execPath, join(FIXTURES_DIR, 'fake-bwrap.mjs'), dir, ...options] }),
    cwd: dir,
    env: process.env,
    logFile: join(dir, 'agent.log'),
    stdin: null,
    graceMs: 2_000,
    endsWithLauncher,
    watchdogs,
  });
}

/**
 * A stop that arrives while bwrap is still building the sandbox: its child, the sandbox's init, exists
 * and nothing runs inside yet. Signalled, bwrap would die and leave the init running the command as an
 * orphan, its exit reported first; the init is killed instead. With fed-agent (no watchdog) and under the
 * watchdog (the built one: `npm run build` first), started for the agent or ahead of it. bwrap is test/fixtures/fake-bwrap.mjs, whose init
 * never runs the command.
 */
describe.each([
  ['with no watchdog', true, false],
  ['under the watchdog', false, false],
  ['under a spare watchdog', false, true],
])('a stop while the sandbox is being built, %s', (_, endsWithLauncher, spare) => {
  it('kills the sandbox init, and reports the exit once it is gone', async () => {
    const dir = tempDir();
    const agent = await inFakeSandbox(dir, endsWithLauncher, spare);
    const initFile = join(dir, 'init.pid');
    onTestFinished(() => {
      killEach([-agent.pid]);
      if (existsSync(initFile)) killEach([readPid(initFile)]);
    });
    await waitFor(() => existsSync(initFile), 15_000, 'the sandbox init to start');
    const init = readPid(initFile);
    await agent.stop();
    expect(ended(init), standing(init)).toBe(true);
  }, 60_000);
});

/**
 * bwrap passes its command's exit on as the command exits; the sandbox's init ends a moment later (real
 * bwrap's die-with-parent signal): the agent's exit is passed on once the init is gone too.
 */
describe.each([
  ['with no watchdog', true, false],
  ['under the watchdog', false, false],
  ['under a spare watchdog', false, true],
])('a sandbox whose init outlives its command, %s', (_, endsWithLauncher, spare) => {
  it('reports the exit once the init is gone', async () => {
    const dir = tempDir();
    const agent = await inFakeSandbox(dir, endsWithLauncher, spare, ['--run']);
    const initFile = join(dir, 'init.pid');
    onTestFinished(() => {
      if (existsSync(initFile)) killEach([readPid(initFile)]);
    });
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    const init = readPid(initFile);
    expect(ended(init), standing(init)).toBe(true);
  }, 60_000);
});
