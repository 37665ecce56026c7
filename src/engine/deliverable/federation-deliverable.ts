import { resolve, sep } from 'node:path';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { recordDeliverableMetrics } from '../../infra/telemetry/deliverable-metrics.js';
import { checkDeliverable, type CheckDeliverableOptions, type DeliverableCheck } from './check-deliverable.js';
import type { Federation } from '../context.js';

/** The federation's deliverableSchema (docs/design/spec.md §2.3), resolved against its root; none when not configured. */
export function configuredSchema(root: string, config: FederationConfig, configFile: string): CheckDeliverableOptions {
  if (config.deliverableSchema === undefined) return {};
  return {
    schemaPath: resolve(root, config.deliverableSchema),
    schemaLabel: `deliverableSchema (${config.deliverableSchema}) in ${configFile}`,
  };
}

/** The team whose workspace holds `file`, if any. */
export function teamHolding(teams: readonly RegistryEntry[], file: string): RegistryEntry | undefined {
  const path = resolve(file);
  return teams.find((team) => path.startsWith(`${team.location}${sep}`));
}

/**
 * `fed deliverable check` inside a federation: check `file` (with `options`' schema, else the federation's
 * deliverableSchema), and when it passes and lies in a team's workspace, record that team's deliverable
 * metrics (docs/design/spec.md §6) — as a completing launch does.
 */
export async function checkFederationDeliverable(
  fed: Federation,
  file: string,
  options: CheckDeliverableOptions = {},
): Promise<DeliverableCheck> {
  const check = checkDeliverable(
    file,
    options.schemaPath !== undefined ? options : configuredSchema(fed.root, fed.config, fed.configFile.file),
  );
  const team = check.ok ? teamHolding((await fed.backend.registry.read()).teams, check.file) : undefined;
  if (team) recordDeliverableMetrics(team.domainId, check.summary);
  return check;
}
