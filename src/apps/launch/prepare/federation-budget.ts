import { RefusedError } from '../../../core/errors.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import type { Federation } from '../../../engine/context.js';
import { readFederationRuns } from '../../runs/federation-runs.js';
import { totalCost, usd } from '../../runs/render-runs.js';

/**
 * The federation's budget (`agent.limits.federationUsd`): once every team's runs together have cost that
 * much, no launch starts — refused before the agent does, naming the spend and how to go on. The spend
 * is `fed runs`'s federation total: removed teams' runs count too (money spent stays spent), as their
 * removal kept them. It is what the CLIs reported; runs without a reported cost (codex, gemini, …) count as nothing, and the
 * refusal says how many there were.
 */
export async function refuseOverBudget(fed: Federation, config: FederationConfig): Promise<void> {
  const limit = config.agent.limits.federationUsd;
  if (limit === undefined) return;
  const { total } = await readFederationRuns(fed);
  if ((total.costUsd ?? 0) < limit) return;
  throw new RefusedError(
    'FEDERATION_BUDGET_SPENT',
    `the federation's agent runs have cost ${totalCost(total)}, reaching its budget of ${usd(limit)} (agent.limits.federationUsd); no agent is launched until you raise agent.limits.federationUsd in federate.config.json (fed runs shows what each run cost)`,
  );
}
