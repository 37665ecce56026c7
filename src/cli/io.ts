import type { Command } from 'commander';
import { loadFederationConfig } from '../adapters/index.js';
import type { LoadedConfig } from '../infra/config/load-config.js';
import { locateFederation, type FederationLocation } from '../apps/init/locate.js';
import { openFederation, type Federation } from '../engine/context.js';
import { globalOptions, type CliIo } from './cli-io.js';
import { startCliTelemetry } from './telemetry.js';

export * from './cli-io.js';

export interface CommandContext extends FederationLocation {
  config: LoadedConfig;
  /** The federation, opened once for the command and handed to the library. */
  fed: Federation;
}

/**
 * Resolve the federation for a command and load its config, printing config warnings once; metrics export
 * starts here when the config enables it.
 */
export function federationContext(command: Command, io: CliIo): CommandContext {
  const location = locateFederation({ root: globalOptions(command).root, env: io.env, cwd: io.cwd });
  const config = loadFederationConfig(location.root, io.env);
  for (const warning of config.warnings) io.stderr(`warning: ${warning}\n`);
  startCliTelemetry(location.root, config.config, io);
  return { ...location, config, fed: openFederation(location.root, { env: io.env, config }) };
}
