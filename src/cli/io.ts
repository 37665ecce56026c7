import type { Command } from 'commander';
import { loadConfig, type LoadedConfig } from '../config/load-config.js';
import { locateFederation, type FederationLocation } from '../federation/locate.js';
import { startCliTelemetry } from './telemetry.js';

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
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY),
  };
}

/** Global options shared by every command. */
export interface GlobalOptions {
  root?: string;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export interface CommandContext extends FederationLocation {
  config: LoadedConfig;
}

/**
 * Resolve the federation for a command and load its config, printing config warnings once; metrics export
 * starts here when the config enables it.
 */
export function federationContext(command: Command, io: CliIo): CommandContext {
  const location = locateFederation({ root: globalOptions(command).root, env: io.env, cwd: io.cwd });
  const config = loadConfig(location.root, io.env);
  for (const warning of config.warnings) io.stderr(`warning: ${warning}\n`);
  startCliTelemetry(config.config, io);
  return { ...location, config };
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
