import { writeSync } from 'node:fs';

/**
 * The CLI's standard output, without `process.stdout` where it can: that stream is made on first use
 * and loads node's stream modules, about 2 ms of a command's start (measured against a write to the
 * descriptor) — and most commands print a line or two and exit. On Linux and macOS node writes stdout
 * synchronously whether it is a file, a pipe or a terminal, so writing to the descriptor is what the
 * stream would do. A descriptor that would block (a non-blocking pipe inherited from the parent) is left
 * to the stream, which waits; from then on every write goes there, in order.
 */
let streamed = false;

export function writeStdout(text: string): void {
  if (streamed) return void stdoutStream().write(text);
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EPIPE') readerGone();
    // Anything else (a full disk behind a redirect, say) is the command's error, told as such.
    if (code !== 'EAGAIN') throw error;
    streamed = true;
    // The bytes not written yet, as bytes: a character may have been cut in two.
    stdoutStream().write(bytes.subarray(at));
  }
}

let guarded = false;

/** `process.stdout`, for what needs the stream itself (an MCP server's transport, a terminal's width). */
export function stdoutStream(): NodeJS.WriteStream {
  const stream = process.stdout;
  if (!guarded) {
    guarded = true;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      readerGone();
    });
  }
  return stream;
}

/** A reader that went away (`fed team list | head -1`) ends the output, not the command with a stack trace. */
function readerGone(): never {
  process.exit(process.exitCode ?? 0);
}
