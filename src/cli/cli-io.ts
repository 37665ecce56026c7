import type { Command } from 'commander';
import { stdoutStream, writeStderr, writeStdout } from './stdout.js';

/**
 * The CLI's surroundings and plain output helpers — what every command and the program itself need. Kept
 * apart from federationContext (io.ts), which loads the config machinery a bare `fed --version` must not.
 */
/** Where the CLI writes and what it reads from its surroundings; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is an interactive terminal (colours, redraws). */
  isTTY: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: writeStdout,
    stderr: writeStderr,
    env: process.env,
    cwd: process.cwd(),
    // Asked only by the commands that draw for a terminal: the question makes the stream (see writeStdout).
    get isTTY() {
      return Boolean(stdoutStream().isTTY);
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
