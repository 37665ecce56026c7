import { getTeam } from '../../core/find-team.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { viewLifecycle, type LifecycleView } from '../../engine/actors/lifecycle-view.js';
import { lifecycleFor } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';
import { readLastRun } from '../launch/run-records.js';
import { teamRunTotals } from '../runs/journal-totals.js';
import type { RunTotals } from '../runs/run-totals.js';

/**
 * One team in detail — what `fed team show --json` prints and meta's `fed_team` tool returns: the registry
 * entry, its lifecycle (null for an archetype without a machine), its last run and its runs added up.
 */
export interface TeamDetail extends RegistryEntry {
  lifecycle: LifecycleView | null;
  lastRun: LaunchRun | null;
  runTotals: RunTotals;
}

export async function teamDetail(fed: Federation, name: string): Promise<TeamDetail> {
  const entry = getTeam(await fed.backend.registry.read(), name);
  const lifecycle = lifecycleFor(entry.archetypeId) ? await viewLifecycle(fed, entry) : null;
  return { ...entry, lifecycle, lastRun: readLastRun(entry.location), runTotals: teamRunTotals(fed, entry) };
}
