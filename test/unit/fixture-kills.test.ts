import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAlive, killEach, readPid } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The tests' own kills: a pid file read before its writer wrote it reads "", which Number() makes 0, and
 * kill(2) of 0 is the test runner's whole process group — the CI run with it. process.kill is replaced
 * here, so that a broken guard is a failed assertion, never a killed run.
 */
describe('the kills of the tests’ own processes', () => {
  afterEach(() => vi.restoreAllMocks());

  const pidFile = (text: string) => {
    const file = join(tempDir(), 'agent.pid');
    writeFileSync(file, text);
    return file;
  };

  it('reads a pid a process wrote, and refuses what is no pid, naming the file and its text', () => {
    expect(readPid(pidFile('4242\n'))).toBe(4242);
    for (const text of ['', '\n', '0', '1', '-5', '12ab', '1.5']) {
      const file = pidFile(text);
      expect(() => readPid(file)).toThrow(`${file} holds ${JSON.stringify(text)}, not a pid`);
    }
  });

  it('signals processes and groups, skips one gone, and refuses 0, -1, 1 and NaN without signalling them', () => {
    const kill = vi.spyOn(process, 'kill').mockImplementation((pid) => {
      if (pid === 5151) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
      return true;
    });
    expect(() => killEach([4242, -4343, 0, -1, 1, Number.NaN, 5151])).toThrow(
      'refused to signal 0, -1, 1, NaN: no process a test started',
    );
    expect(kill.mock.calls).toEqual([
      [4242, 'SIGKILL'],
      [-4343, 'SIGKILL'],
      [5151, 'SIGKILL'],
    ]);
    expect(isAlive(0)).toBe(false);
    expect(kill).toHaveBeenCalledTimes(3);
  });

  it('passes on a failure other than a process gone', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    expect(() => killEach([4242], 'SIGTERM')).toThrow('kill EPERM');
  });
});
