import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import type { Archetype } from '../../engine/archetypes/archetype.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import type { LaunchOptions } from './launch-options.js';
import type { LaunchPhases } from './launch-phases.js';
import type { LaunchWatch } from './launch-watch.js';

/**
 * One launch, as launchTeam (launch-team.ts) hands it to each phase — prepare/, supervise/, judge/ and
 * record/, in the order of machines/launch.machine.ts: the federation, the team, the caller's options,
 * what the launch sees of the team, where it is in its sequence, and what it will report. What a phase
 * makes for the next (the prepared run, the ended run, the decision) is handed on beside it.
 */
export interface Launch {
  fed: Federation;
  root: string;
  team: RegistryEntry;
  archetype: Archetype;
  options: LaunchOptions;
  backend: FederationBackend;
  watch: LaunchWatch;
  phases: LaunchPhases;
  /** Problems that do not stop the launch, reported with its result. */
  warnings: string[];
  /** When the launch began (ms): the timeout and wall-time limit count from here. */
  started: number;
}

/** A warning for the launch's result, when there is one (a journal or hook that could not be told). */
export function pushWarning(warnings: string[], warning: string | undefined): void {
  if (warning) warnings.push(warning);
}
