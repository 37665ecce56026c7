import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { descendantsOf, processTable } from '../../../src/infra/process/process-tree.js';
import { killEach, waitFor } from '../../helpers/fixture-process.js';

describe('the process tree (/proc)', () => {
  it('descendants are found through every generation, whatever their group; strangers are not', () => {
    const table = [
      { pid: 10, ppid: 1, group: 10 },
      { pid: 11, ppid: 10, group: 10 },
      { pid: 12, ppid: 11, group: 12 }, // moved to a group (or session) of its own
      { pid: 13, ppid: 12, group: 12 },
      { pid: 20, ppid: 1, group: 10 }, // same group, not a descendant
    ];
    expect(descendantsOf(10, table)).toEqual([11, 12, 13]);
    expect(descendantsOf(13, table)).toEqual([]);
  });

  it('reads this host: a child and its own child are descendants, with their parent and group', async () => {
    const child = spawn('sh', ['-c', 'sleep 30 & wait'], { stdio: 'ignore' });
    onTestFinished(() => {
      killEach(descendantsOf(child.pid!));
      child.kill('SIGKILL');
    });
    await waitFor(() => descendantsOf(child.pid!).length >= 1, 10_000, 'the shell to start sleep');
    const [shell, sleeper] = [child.pid!, descendantsOf(child.pid!)[0]!];
    expect(descendantsOf(process.pid)).toEqual(expect.arrayContaining([shell, sleeper]));
    expect(processTable().find((entry) => entry.pid === sleeper)).toMatchObject({ ppid: shell });
  });
});
