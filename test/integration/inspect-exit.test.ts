import { readFileSync, writeFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The inspector must never keep a command alive: a real process that served the inspector, with a
 * "browser" still connected to its event stream, exits by itself — with stop(), and even without it.
 */
describe('a process using --inspect exits on its own', () => {
  test.each(['stop', 'forget-stop'])('with a page still connected (%s)', async (mode) => {
    const dir = tempDir();
    const logFile = join(dir, 'inspect.jsonl');
    const goFile = join(dir, 'go');
    const session = startFixture('inspect-session.mjs', [mode, logFile, goFile]);
    let stdout = '';
    session.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor(() => /^url (\S+)$/m.test(stdout), 20_000, 'the inspector URL');
    const url = /^url (\S+)$/m.exec(stdout)![1]!;

    // Connect like the inspector page does, and stay connected.
    let streamed = '';
    const page = await new Promise<IncomingMessage>((resolve, reject) =>
      get(new URL('events', url), resolve).on('error', reject),
    );
    page.on('data', (chunk: Buffer) => (streamed += chunk.toString()));
    const pageClosed = new Promise<void>((resolve) => page.on('close', () => resolve()));
    await waitFor(() => streamed.includes('"value":"scanning"'), 10_000, 'the actor on the event stream');

    writeFileSync(goFile, '');
    const exited = await Promise.race([
      session.done,
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
    ]);
    if (exited === 'hung') session.child.kill('SIGKILL');
    expect(exited).toMatchObject({ code: 0, signal: null });
    expect(stdout).toContain('done\n');
    await pageClosed;
    if (mode === 'stop') expect(streamed).toContain('event: disconnected');
    const records = readFileSync(logFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(records.some((r) => r.type === '@xstate.snapshot')).toBe(true);
  });
});
