import type { Command } from 'commander';
import { stdoutStream, writeStderr, writeStdout } from './stdout.js';
import { escapeControls } from '../core/terminal-text.js';
import { InvalidInputError } from '../core/errors.js';
import type { CommandIo } from '../core/command-io.js';

/**
 * The CLI's surroundings and plain output helpers — what every command and the program itself need. Kept
 * apart from federationContext (io.ts), which loads the config machinery a bare `fed --version` must not.
 */
/** Where the CLI writes and what it reads from its surroundings; tests pass their own. */
export type CliIo = CommandIo;

export function processIo(): CliIo {
  return {
    stdout: writeStdout,
    stderr: writeStderr,
    terminal: writeStdout,
    env: process.env,
    // Asked when a command needs it, where a refusal is said as fed says one: a shell whose folder was
    // removed meanwhile has none (process.cwd() fails with ENOENT), and `fed --version` needs none.
    get cwd() {
      try {
        return process.cwd();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        throw new InvalidInputError(
          'the current folder no longer exists (removed or moved since this shell entered it); cd to a folder that exists and run the command again',
        );
      }
    },
    // Asked only by the commands that draw for a terminal: the question makes the stream (see writeStdout).
    get isTTY() {
      return Boolean(stdoutStream().isTTY);
    },
  };
}

/**
 * `io` with what a command prints escaped (escapeControls): whatever field of a signal, registry entry,
 * file or agent output it shows, no control character of it reaches the reader's terminal. Only
 * `terminal` writes as it is. `isTTY` is asked of `io` only when a command asks (see processIo).
 */
export function escapedIo(io: CliIo): CliIo {
  return {
    stdout: (text) => io.stdout(escapeControls(text)),
    stderr: (text) => io.stderr(escapeControls(text)),
    terminal: io.terminal,
    env: io.env,
    get cwd() {
      return io.cwd;
    },
    get isTTY() {
      return io.isTTY;
    },
  };
}

/** Global options shared by every command. */
export interface GlobalOptions {
  root?: string;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Thrown by a command that has already printed its outcome and only needs a non-zero exit code. */
export class CliExit extends Error {
  readonly exitCode: number;

  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.exitCode = exitCode;
  }
}
