import { describe, expect, it } from 'vitest';
import { runCaptured } from '../../../src/infra/process/run-captured.js';

const node = (code: string) => [process.execPath, '-e', code];
const options = { cwd: process.cwd(), env: process.env };

describe('runCaptured', () => {
  it('captures stdout whole and the tail of stderr, with the exit code', async () => {
    const run = await runCaptured(
      node("process.stdout.write('out'); process.stderr.write('x'.repeat(5000) + 'END'); process.exit(3)"),
      { ...options, stderrTailBytes: 10 },
    );
    expect(run).toMatchObject({ code: 3, stdout: 'out', stderr: 'xxxxxxxEND' });
    expect(run.stopped).toBeUndefined();
  });

  it('a timeout stops the whole group, a grandchild holding the pipe included', async () => {
    const started = Date.now();
    const code =
      "require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'inherit' }); setTimeout(() => {}, 60000)";
    const run = await runCaptured(node(code), { ...options, timeoutMs: 300, ownGroup: true });
    expect(run.stopped).toBe('timeout');
    expect(run.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a program that does not exist is an error, not a throw', async () => {
    const run = await runCaptured(['/nonexistent/fed-test-program'], options);
    expect(run.error?.code).toBe('ENOENT');
  });
});
