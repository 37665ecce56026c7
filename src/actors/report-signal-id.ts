import { v5 as uuidv5 } from 'uuid';

/** Namespace of the deterministic ids of lifecycle report signals (a fixed, random UUID). */
const REPORT_NAMESPACE = '8d0c6f36-5a4c-4f39-9f77-51c4b0b7a8e2';

/**
 * The id of the report a team's `seq`-th event owes meta. Derived, not random, so re-sending it after a
 * crash finds the copy already delivered and sends nothing twice.
 */
export function reportSignalId(team: string, machineId: string, seq: number): string {
  return uuidv5(`${team}/${machineId}/${seq}`, REPORT_NAMESPACE);
}
