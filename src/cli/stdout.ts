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
  /** The reader went away: what is written now goes nowhere. */
  private gone = false;

  constructor(
    private readonly fd: 1 | 2,
    private readonly makeStream: () => NodeJS.WriteStream,
    /** What a reader that went away means (EPIPE). */
    private readonly readerGone: () => void,
  ) {}

  write(text: string): void {
    if (this.gone) return;
    if (this.streamed) return void this.stream().write(text);
    const bytes = Buffer.from(text);
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.fd, bytes, at);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EPIPE') return this.lost();
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
        this.lost();
      });
    }
    return this.made;
  }

  private lost(): void {
    this.gone = true;
    this.readerGone();
  }
}

/** What a reader of stdout that went away means (see onStdoutReaderGone); until told, stdout goes quiet. */
let stdoutReaderGone = (): void => undefined;

/** Set what a reader of stdout that went away means: the CLI's entry (main.ts) ends the command there. */
export function onStdoutReaderGone(handler: () => void): void {
  stdoutReaderGone = handler;
}

const stdout = new DescriptorOutput(
  1,
  () => process.stdout,
  () => stdoutReaderGone(),
);
/**
 * One of stderr that went away only silences it: the command goes on, and exits with its own code (a
 * refusal written there must not become a success).
 */
const stderr = new DescriptorOutput(
  2,
  () => process.stderr,
  () => undefined,
);

export const writeStdout = (text: string): void => stdout.write(text);
export const writeStderr = (text: string): void => stderr.write(text);
export const stdoutStream = (): NodeJS.WriteStream => stdout.stream();

/**
 * The standard streams made so far — by fed, or by anything else that writes to them (Node's warnings, a
 * dependency's console): Node makes each on first use, and tells no one, so its getter is wrapped to note
 * it. What exiting at once must wait for (outputPending).
 */
const madeStreams = new Set<NodeJS.WriteStream>();
for (const name of ['stdout', 'stderr'] as const) {
  const property = Object.getOwnPropertyDescriptor(process, name);
  const made = property?.get;
  if (!made || !property.configurable) continue;
  Object.defineProperty(process, name, {
    ...property,
    get() {
      const stream = made.call(process) as NodeJS.WriteStream;
      madeStreams.add(stream);
      return stream;
    },
  });
}

/** Whether output is still queued in a standard stream: exiting now would lose it. */
export function outputPending(): boolean {
  for (const stream of madeStreams) if (stream.writableLength > 0) return true;
  return false;
}
