import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';

/**
 * Which process a pid names: the start time read from /proc/<pid>/stat, and whether a recorded process
 * still runs — a reused pid, a zombie, a process of another user. Real processes where they can be made;
 * a stat line a kernel could write but this one will not (a command name with parentheses, a truncated
 * line) and a process kill(2) may not signal are given through node:fs and process.kill.
 */
vi.mock('node:fs', async (importOriginal) => (await import('./fs-faults.js')).faultyFs(await importOriginal()));

const { spawn } = await import('node:child_process');
const { readFileSync } = await import('node:fs');
const { errnoError, hooks, resetFaults } = await import('./fs-faults.js');
const { currentProcessStartTime, processIsAlive, processStartTime } =
  await import('../../../src/infra/fs/process-identity.js');
const { killEach, waitFor } = await import('../../helpers/fixture-process.js');

/** Pids above any pid_max: no such process. */
const NO_PROCESS = 4_194_400;
const OTHER_USERS = 4_194_401;

/** What /proc/<pid>/stat says for the fake pids, and how many times each stat file was read. */
const fakeStats = new Map<string, string>();
const statReads = new Map<string, number>();

function statLine(command: string, state: string, start: string): string {
  // Fields 4 to 21, then the start time (22), then the rest.
  const middle = Array.from({ length: 18 }, (_, i) => String(i + 1)).join(' ');
  return `${NO_PROCESS} (${command}) ${state} ${middle} ${start} 4096 1 0\n`;
}

function fakeStat(pid: number, text: string): void {
  fakeStats.set(`/proc/${pid}/stat`, text);
}

function countStatReads(): void {
  hooks.readFileSync = (real, path, ...rest) => {
    const name = String(path);
    if (/^\/proc\/\d+\/stat$/.test(name)) statReads.set(name, (statReads.get(name) ?? 0) + 1);
    return fakeStats.get(name) ?? real(path, ...rest);
  };
}

/** kill(2) of OTHER_USERS says EPERM, as for a process of another user; other pids are the real ones. */
function otherUsersProcess(): void {
  const kill = process.kill.bind(process);
  vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
    if (pid === OTHER_USERS) throw errnoError('EPERM', 'kill');
    return kill(pid, signal);
  });
}

afterEach(() => {
  resetFaults();
  fakeStats.clear();
  statReads.clear();
  vi.restoreAllMocks();
});

/** A process that runs until the test ends. */
function runningChild(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  onTestFinished(() => void child.kill('SIGKILL'));
  return child.pid!;
}

describe('the start time of a process', () => {
  it('is field 22 of its stat, counted after the last ")" of a command name with spaces and parentheses', () => {
    countStatReads();
    fakeStat(NO_PROCESS, statLine('a) b) (c', 'S', '98765'));
    expect(processStartTime(NO_PROCESS)).toBe('98765');
  });

  it.each([
    ['a line cut short before field 22', `${NO_PROCESS} (node) S 1 2 3\n`],
    ['a start time with letters after the digits', statLine('node', 'S', '98765x')],
    ['a start time with letters before the digits', statLine('node', 'S', 'x98765')],
    ['an empty start time', statLine('node', 'S', '')],
  ])('is unknown for %s', (_, line) => {
    countStatReads();
    fakeStat(NO_PROCESS, line);
    expect(processStartTime(NO_PROCESS)).toBeUndefined();
  });

  it('is unknown for a process that does not exist', () => {
    expect(processStartTime(NO_PROCESS)).toBeUndefined();
  });

  it('of this process is what its stat says, read once', () => {
    const own = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const fields = own.slice(own.lastIndexOf(')') + 2).split(' ');
    expect(currentProcessStartTime()).toBe(fields[19]);
    countStatReads();
    expect(currentProcessStartTime()).toBe(fields[19]);
    expect(processIsAlive(process.pid, fields[19])).toBe(true);
    expect(statReads.size).toBe(0);
  });
});

describe('whether a recorded process still runs', () => {
  it('this process: alive with its own start time or none, gone with another (its pid was reused)', () => {
    const start = currentProcessStartTime()!;
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(process.pid, start)).toBe(true);
    expect(processIsAlive(process.pid, `${Number(start) + 1}`)).toBe(false);
  });

  it('another process: alive with its start time or none, gone with another start time', () => {
    const pid = runningChild();
    const start = processStartTime(pid)!;
    expect(start).toMatch(/^\d+$/);
    expect(processIsAlive(pid, start)).toBe(true);
    expect(processIsAlive(pid)).toBe(true);
    expect(processIsAlive(pid, `${Number(start) + 1}`)).toBe(false);
  });

  it('a pid no process has is gone', () => {
    expect(processIsAlive(NO_PROCESS)).toBe(false);
    expect(processIsAlive(NO_PROCESS, '1')).toBe(false);
  });

  it('0 and negative ids name process groups to kill(2), not processes: never alive (a torn pid file reads 0)', () => {
    for (const pid of [0, -0, -1, -process.pid, Number(''), Number.NaN, 1.5]) expect(processIsAlive(pid)).toBe(false);
  });

  it('a zombie (exited, not yet collected by its parent) is gone', async () => {
    // The backgrounded sleep's parent execs into a process that never collects it; the sleep is killed only
    // once that exec is done, so no shell is left to collect it.
    const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 61'], { stdio: ['ignore', 'pipe', 'ignore'] });
    onTestFinished(() => void parent.kill('SIGKILL'));
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('\n'), 10_000, 'the child’s pid');
    const child = Number(out.trim());
    onTestFinished(() => killEach([child]));
    await waitFor(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8') === 'sleep\n', 10_000, 'the exec');
    const start = processStartTime(child);
    expect(processIsAlive(child, start)).toBe(true);
    killEach([child]);
    const stateOf = () => {
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    };
    await waitFor(() => stateOf() === 'Z', 10_000, 'the child to become a zombie');
    expect(processIsAlive(child, start)).toBe(false);
    expect(processIsAlive(child)).toBe(false);
  });

  it('a process of another user (kill says EPERM) is alive; without its stat the pid alone decides', () => {
    otherUsersProcess();
    expect(processIsAlive(OTHER_USERS)).toBe(true);
    expect(processIsAlive(OTHER_USERS, '12345')).toBe(true);
  });

  it('a process of another user is judged by its stat when there is one', () => {
    otherUsersProcess();
    countStatReads();
    fakeStat(OTHER_USERS, statLine('node', 'S', '12345'));
    expect(processIsAlive(OTHER_USERS, '12345')).toBe(true);
    expect(processIsAlive(OTHER_USERS, '54321')).toBe(false);
    fakeStat(OTHER_USERS, statLine('node', 'Z', '12345'));
    expect(processIsAlive(OTHER_USERS, '12345')).toBe(false);
  });
});
