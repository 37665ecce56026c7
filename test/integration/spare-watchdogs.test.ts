import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AgentProcess, SpareWatchdogs } from 'fed/testing';
import { isAlive, killEach, startFixture, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The first JSON line the fixture prints. */
async function firstLine<T>(child: ReturnType<typeof startFixture>['child']): Promise<T> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(JSON.parse(text.slice(0, text.indexOf('\n'))) as T);
    });
  });
}

describe('watchdogs started ahead of their launches (fed serve)', () => {
  it("a launch taken by a spare runs as under a watchdog started for it: the agent's directory, environment, stdin, stdout and log, its exit passed on", async () => {
    const dir = tempDir();
    const watchdogs = new SpareWatchdogs();
    onTestFinished(() => watchdogs.close());
    const release = join(dir, 'release');
    const script = [
      "const fs = require('node:fs');",
      "let input = ''; process.stdin.on('data', (c) => (input += c));",
      'process.stdin.on(\'end\', () => { process.stdout.write(JSON.stringify({ cwd: process.cwd(), input, secret: process.env.AGENT_ONLY }) + "\\n"); process.stderr.write("agent says hello\\n"); });',
      `const wait = setInterval(() => { if (fs.existsSync(${JSON.stringify(release)})) { clearInterval(wait); process.exitCode = 3; } }, 10);`,
    ].join('\n');
    let stdout = '';
    const agent = await AgentProcess.start({
      command: [process.execPath, '-e', script],
      cwd: dir,
      env: { ...process.env, AGENT_ONLY: 'for the agent' },
      logFile: join(dir, 'agent.log'),
      stdin: 'the prompt',
      onStdout: (chunk) => (stdout += chunk.toString()),
      graceMs: 1_000,
      watchdogs,
    });
    onTestFinished(() => killEach([-agent.pid]));
    await waitFor(() => stdout.includes('\n'), 15_000, "the agent's first line");
    expect(JSON.parse(stdout)).toEqual({ cwd: dir, input: 'the prompt', secret: 'for the agent' });
    // The watchdog itself was started with nothing of the launcher's environment (the agent's came with the
    // launch): only what Node sets for its IPC channel.
    const environ = readFileSync(`/proc/${agent.pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(environ.map((entry) => entry.split('=')[0]).sort()).toEqual([
      'NODE_CHANNEL_FD',
      'NODE_CHANNEL_SERIALIZATION_MODE',
    ]);
    writeFileSync(release, '');
    expect(await agent.exited).toEqual({ code: 3, signal: null });
    const log = readFileSync(join(dir, 'agent.log'), 'utf8');
    expect(log).toMatch(/^\n.*\ncommand: .*\ncwd: .*\n\nagent says hello\n$/s);
  }, 60_000);

  it('an agent given no stdin reads none under a spare, as under a watchdog started for it (/dev/null)', async () => {
    const dir = tempDir();
    const watchdogs = new SpareWatchdogs();
    onTestFinished(() => watchdogs.close());
    let stdout = '';
    const agent = await AgentProcess.start({
      command: [process.execPath, '-e', "process.stdout.write(require('node:fs').readlinkSync('/proc/self/fd/0'))"],
      cwd: dir,
      env: process.env,
      logFile: join(dir, 'agent.log'),
      stdin: null,
      onStdout: (chunk) => (stdout += chunk.toString()),
      watchdogs,
    });
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    expect(stdout).toBe('/dev/null');
  }, 60_000);

  it('a spare whose launcher is SIGKILLed while it waits exits, with no agent', async () => {
    const launcher = startFixture('spare-watchdog-launcher.mjs', [tempDir(), 'wait']);
    onTestFinished(() => killEach([launcher.child.pid!]));
    const { spare } = await firstLine<{ spare: number }>(launcher.child);
    expect(isAlive(spare)).toBe(true);
    launcher.child.kill('SIGKILL');
    await waitFor(() => !isAlive(spare), 15_000, 'the spare to exit');
  }, 60_000);

  it('an agent under a spare is stopped when its launcher is SIGKILLed', async () => {
    const dir = tempDir();
    const launcher = startFixture('spare-watchdog-launcher.mjs', [dir, 'agent']);
    onTestFinished(() => killEach([launcher.child.pid!]));
    const { watchdog } = await firstLine<{ watchdog: number }>(launcher.child);
    onTestFinished(() => killEach([-watchdog]));
    const log = join(dir, 'agent.log');
    await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes('agent up'), 15_000, 'the agent to run');
    launcher.child.kill('SIGKILL');
    await waitFor(() => !isAlive(watchdog), 15_000, 'the watchdog to stop the agent and exit');
    expect(readFileSync(log, 'utf8')).toMatch(/the launcher is gone; stopping the agent \(pid \d+\)/);
  }, 60_000);
});
