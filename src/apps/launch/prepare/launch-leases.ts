import { setTimeout as sleep } from 'node:timers/promises';
import { acquireTeamLease, tryAcquireTeamLease } from '../../../engine/actors/team-lease.js';
import { awaitsApply, loadTeamLifecycle } from '../../../engine/actors/team-lifecycle.js';
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

/**
 * Give the running actor consumer a moment to apply the signals waiting in the inbox (the mission may be
 * among them) or held in the envelope (a new run's mission); after a few seconds the launch goes on with
 * what is applied.
 */
export async function waitForConsumer(backend: FederationBackend, team: RegistryEntry, limitMs = 5_000): Promise<void> {
  const inbox = backend.signals.inbox({ id: team.domainId, entry: team });
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
    if (lifecycle.snapshot.value === 'paused') return;
    const held = (lifecycle.envelope.held?.length ?? 0) > 0;
    if (!held && !(await inbox.list()).signals.some((s) => awaitsApply(lifecycle.envelope, s.message))) return;
    await sleep(100);
  }
}
