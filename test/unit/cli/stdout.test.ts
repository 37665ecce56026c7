import { afterEach, describe, expect, it, vi } from 'vitest';

/** writeSync(1, …) as the test scripts it: how many bytes each call takes, or the error it throws. */
const script: Array<number | NodeJS.ErrnoException> = [];
const written: Buffer[] = [];
/** What reached descriptor 2, and the errors its writes throw, in order. */
const toStderr: Buffer[] = [];
const stderrScript: NodeJS.ErrnoException[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped = {
    ...real,
    writeSync: (fd: number, buffer: Buffer, offset = 0) => {
      if (fd === 2) {
        const error = stderrScript.shift();
        if (error) throw error;
        toStderr.push(Buffer.from(buffer.subarray(offset)));
        return buffer.length - offset;
      }
      if (fd !== 1) throw new Error(`unexpected write to ${fd}`);
      const next = script.shift() ?? buffer.length - offset;
      if (typeof next !== 'number') throw next;
      written.push(Buffer.from(buffer.subarray(offset, offset + next)));
      return next;
    },
  };
  return { ...wrapped, default: wrapped };
});

const errno = (code: string) => Object.assign(new Error(code), { code });

/** The module as a command starts with it: nothing written, no stream made. */
async function freshOutput(): Promise<typeof import('../../../src/cli/stdout.js')> {
  vi.resetModules();
  return import('../../../src/cli/stdout.js');
}

/** process.exit, made to throw instead (the test goes on to check what it was called with). */
const exitThrows = () =>
  vi.spyOn(process, 'exit').mockImplementation((() => {
    throw new Error('exited');
  }) as never);

afterEach(() => {
  vi.restoreAllMocks();
  script.length = 0;
  written.length = 0;
  toStderr.length = 0;
  stderrScript.length = 0;
});

describe('the CLI writes stdout to the descriptor, and to the stream when the descriptor would block', () => {
  it('writes everything to the descriptor, a short write continued where it stopped', async () => {
    const { writeStdout } = await freshOutput();
    const stream = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    script.push(3);
    writeStdout('team-0001: ready\n');
    expect(Buffer.concat(written).toString()).toBe('team-0001: ready\n');
    expect(stream).not.toHaveBeenCalled();
  });

  it('hands the stream the bytes left when the descriptor would block (EAGAIN), and every later write', async () => {
    const { writeStdout } = await freshOutput();
    const stream = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    // "é" is two bytes: the first write stops between them.
    script.push(4, errno('EAGAIN'));
    writeStdout('abcé and more\n');
    writeStdout('next\n');
    expect(Buffer.concat(written).toString('latin1')).toBe(Buffer.from('abcé').subarray(0, 4).toString('latin1'));
    const handed = stream.mock.calls.map(([chunk]) => Buffer.from(chunk as Uint8Array | string));
    expect(Buffer.concat([...written, ...handed]).toString()).toBe('abcé and more\nnext\n');
  });

  it('tells the CLI entry when the reader has gone (EPIPE), and writes nothing more (the entry ends the command)', async () => {
    const { onStdoutReaderGone, writeStdout } = await freshOutput();
    const gone = vi.fn();
    onStdoutReaderGone(gone);
    script.push(errno('EPIPE'));
    expect(() => writeStdout('x\n')).not.toThrow();
    writeStdout('more\n');
    expect(gone).toHaveBeenCalledTimes(1);
    expect(written).toEqual([]);
  });

  it('throws any other error (a full disk behind a redirect) for the command to report', async () => {
    const { writeStdout } = await freshOutput();
    const stream = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    script.push(errno('ENOSPC'));
    expect(() => writeStdout('x\n')).toThrow('ENOSPC');
    expect(stream).not.toHaveBeenCalled();
  });

  it('writes stderr to its descriptor too; nothing is pending unless a standard stream holds unwritten bytes', async () => {
    const { outputPending, writeStderr, writeStdout } = await freshOutput();
    writeStderr('fed: refused\n');
    expect(Buffer.concat(toStderr).toString()).toBe('fed: refused\n');
    const queued = { stdout: 0, stderr: 0 };
    vi.spyOn(process.stdout, 'writableLength', 'get').mockImplementation(() => queued.stdout);
    vi.spyOn(process.stderr, 'writableLength', 'get').mockImplementation(() => queued.stderr);
    expect(outputPending()).toBe(false);
    // The descriptor would block: the rest goes to the stream, which has not written it yet.
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    script.push(errno('EAGAIN'));
    writeStdout('abc');
    queued.stdout = 3;
    expect(outputPending()).toBe(true);
    // A stream made by something else (Node's warnings write to stderr) counts too.
    queued.stdout = 0;
    queued.stderr = 5;
    expect(outputPending()).toBe(true);
  });

  it('a stderr whose reader went away (EPIPE) is silenced: the command goes on, with its own exit code', async () => {
    const { writeStderr } = await freshOutput();
    const exit = exitThrows();
    stderrScript.push(errno('EPIPE'));
    expect(() => writeStderr('fed: refused\n')).not.toThrow();
    writeStderr('fed: later\n');
    expect(exit).not.toHaveBeenCalled();
    expect(toStderr).toEqual([]);
  });
});
