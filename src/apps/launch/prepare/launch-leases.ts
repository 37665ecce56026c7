import { setTimeout as sleep } from 'node:timers/promises';
import { acquireTeamLease, tryAcquireTeamLease } from '../../../engine/actors/team-lease.js';
import { loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
import { firstAwaitingApply } from '../../../engine/actors/awaiting-apply.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { FederationBackend } from '../../../ports/federation-backend.js';

/**
 * The team's launch lease — a second launch of it is refused — and its consumer lease unless `fed actors
 * run` already consumes its inbox (it keeps doing so then).
 */
export async function acquireLeases(team: RegistryEntry): Promise<{ consumes: boolean; release(): void }> {
  const launchLease = await acquireTeamLease(team, 'launch');
  const consumerLease = await tryAcquireTeamLease(team, 'consumer').catch((error: unknown) => {
    launchLease.release();
    throw error;
  });
  return {
    consumes: consumerLease !== undefined,
    release() {
      consumerLease?.release();
      launchLease.release();
    },
  };
}

/** The first look again comes this soon, each later one twice as late, up to the last: see waitForConsumer. */
const FIRST_LOOK_MS = 5;
const LAST_LOOK_MS = 100;

/**
 * Give the running actor consumer a moment to apply the signals waiting in the inbox (the mission may be
 * among them) or held in the envelope (a new run's mission); after a few seconds the launch goes on with
 * what is applied. `fed serve` wakes its actor as it dispatches, and the actor applies a mission in tens
 * of milliseconds: the looks start a few ms apart, so the agent does not start a whole interval later.
 */
export async function waitForConsumer(backend: FederationBackend, team: RegistryEntry, limitMs = 5_000): Promise<void> {
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  const deadline = Date.now() + limitMs;
  for (let wait = FIRST_LOOK_MS; Date.now() < deadline; wait = Math.min(wait * 2, LAST_LOOK_MS)) {
    const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
    if (lifecycle.snapshot.value === 'paused') return;
    const held = (lifecycle.envelope.held?.length ?? 0) > 0;
    if (!held && !(await firstAwaitingApply(inbox, lifecycle.envelope))) return;
    await sleep(wait);
  }
}
