import { v5 as uuidv5 } from 'uuid';
import type { RegistryEntry } from '../../core/schema/registry.js';

/** Namespace of the deterministic ids of lifecycle report signals (a fixed, random UUID). */
const REPORT_NAMESPACE = '8d0c6f36-5a4c-4f39-9f77-51c4b0b7a8e2';

/**
 * The id of the report a team's `seq`-th event owes meta. Derived, not random, so re-sending it after a
 * crash finds the copy already delivered and sends nothing twice. It is stored in the envelope with the
 * event, so a re-send never derives it again. Besides the team id it takes the team's workspace (an
 * absolute path, so no two federations share it) and its onboarding time (a federation re-created in the
 * same directory starts its teams at seq 1 again): a signal id is single-use, and another federation's or
 * an earlier team's report must never take this one's id.
 */
export function reportSignalId(
  team: Pick<RegistryEntry, 'domainId' | 'location' | 'onboardedAt'>,
  machineId: string,
  seq: number,
): string {
  return uuidv5(JSON.stringify([team.location, team.onboardedAt, team.domainId, machineId, seq]), REPORT_NAMESPACE);
}

/**
 * The id of the completion report ("deliverable ready") of a team's launch `runId`: derived like
 * `reportSignalId`, so the launcher and whichever command finishes a launch whose launcher died send the
 * same signal, and meta gets it once.
 */
export function completionReportId(
  team: Pick<RegistryEntry, 'domainId' | 'location' | 'onboardedAt'>,
  runId: string,
): string {
  return uuidv5(
    JSON.stringify([team.location, team.onboardedAt, team.domainId, 'launch-completed', runId]),
    REPORT_NAMESPACE,
  );
}
