import { writeSync } from 'node:fs';

/**
 * The CLI's standard output and error, written to their descriptors, not through `process.stdout` and
 * `process.stderr` where it can: such a stream is made on first use and loads node's stream modules
 * (about 2 ms of a command's start, measured), and on a pipe it writes asynchronously, so what is still
 * queued is lost if the process exits. A write to the descriptor is done when it returns, as a one-shot
 * command's few lines should be. A descriptor that would block (a non-blocking pipe inherited from the
 * parent) is left to the stream, which waits; from then on every write goes there, in order.
 */
class DescriptorOutput {
  private streamed = false;
  private made: NodeJS.WriteStream | undefined;

  constructor(
    private readonly fd: 1 | 2,
    private readonly makeStream: () => NodeJS.WriteStream,
  ) {}

  write(text: string): void {
    if (this.streamed) return void this.stream().write(text);
    const bytes = Buffer.from(text);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EPIPE') readerGone();
      // Anything else (a full disk behind a redirect, say) is the command's error, told as such.
      if (code !== 'EAGAIN') throw error;
      this.streamed = true;
      // The bytes not written yet, as bytes: a character may have been cut in two.
      this.stream().write(bytes.subarray(at));
    }
  }

  /** The stream itself, for what needs it (an MCP server's transport, a terminal's width). */
  stream(): NodeJS.WriteStream {
    if (!this.made) {
      this.made = this.makeStream();
      this.made.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        readerGone();
      });
    }
    return this.made;
  }

  /** Whether the stream, if it was made, still holds bytes it has not written. */
  get pending(): boolean {
    return (this.made?.writableLength ?? 0) > 0;
  }
}

const stdout = new DescriptorOutput(1, () => process.stdout);
const stderr = new DescriptorOutput(2, () => process.stderr);

export const writeStdout = (text: string): void => stdout.write(text);
export const writeStderr = (text: string): void => stderr.write(text);
export const stdoutStream = (): NodeJS.WriteStream => stdout.stream();

/** Whether output is still queued in a stream: exiting now would lose it. */
export function outputPending(): boolean {
  return stdout.pending || stderr.pending;
}

/** A reader that went away (`fed team list | head -1`) ends the output, not the command with a stack trace. */
function readerGone(): never {
  process.exit(process.exitCode ?? 0);
}
