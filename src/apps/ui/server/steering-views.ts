import { PLACEMENT_TYPES } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import { archetypes, DEFAULT_ARCHETYPE } from '../../../engine/archetypes/catalog.js';
import { AGENT_PRESETS } from '../../../core/schema/config.js';
import { loadConfig } from '../../../infra/config/load-config.js';
import { proposePlan } from '../../plan/plan.js';
import { describeNext, describeTrigger, listSchedules } from '../../schedule/schedules.js';
import type { DispatchView } from '../../serve/serve-federation.js';
import type { PlanProposalView, ScheduleRow, SteeringView } from '../api-types.js';

/**
 * What the steering page shows: the dispatcher's state when `fed serve` runs it in this process (null
 * under plain `fed ui`: nothing dispatches here), the schedules of federate.config.json as the file is now
 * (the page adds and removes them, and a person may edit it), and what the onboarding form offers.
 */
export async function steeringView(fed: Federation, dispatch: DispatchView | undefined): Promise<SteeringView> {
  const registry = await fed.backend.registry.read();
  let schedules: ScheduleRow[] = [];
  let schedulesError: string | null = null;
  try {
    const config = loadConfig(fed.root, fed.env).config;
    schedules = (await listSchedules(fed, config.schedules ?? [])).map((view) => ({
      id: view.schedule.id,
      to: view.schedule.to,
      subject: view.schedule.subject,
      trigger: describeTrigger(view.schedule),
      next: describeNext(view),
      lastFired: view.lastFired?.at ?? null,
    }));
  } catch (error) {
    // A config a person broke by hand: said in the panel, the rest of the page still works.
    schedulesError = (error as Error).message;
  }
  return {
    dispatch: dispatch?.state() ?? null,
    schedules,
    schedulesError,
    teams: registry.teams.map((team) => team.domainId).sort(),
    archetypes: archetypes.map((archetype) => archetype.id),
    defaultArchetype: DEFAULT_ARCHETYPE,
    placements: [...PLACEMENT_TYPES],
    presets: [...AGENT_PRESETS],
  };
}

/** `fed plan [--teams n]`: the plan proposed for the codebase now (read on demand: it surveys every file). */
export function planProposalView(fed: Federation, teams: number | undefined): PlanProposalView {
  return { plan: proposePlan(fed, { teams }) };
}
