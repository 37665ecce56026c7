import type { WriteOptions } from '../../infra/fs/atomic-write.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { writeRegistryStatus } from '../registry/team-status.js';
import { META } from '../../core/schema/common.js';
import type { Registry, RegistryEntry, TeamStatus } from '../../core/schema/registry.js';
import { sendSignal } from '../messaging/send-signal.js';
import { findInBox } from '../delivery/find-signal.js';
import type { TeamLifecycle } from './lifecycle-types.js';
import type { Federation } from '../context.js';

/**
 * Envelopes whose effects this process has already completed (workspace → seq/savedAt), so a busy
 * consumer does not redo them on every batch; a new process (after a crash) settles them once on load.
 */
const settled = new Map<string, string>();

/** One registry read shared by the effects of an apply; emptied when an effect writes the registry. */
export interface SharedRegistry {
  registry?: Registry;
  /** The status the registry was brought to, when the status sync wrote it (a command stopped before it had). */
  synced?: TeamStatus;
}

/**
 * Perform what the stored envelope owes outside its own file, idempotently: append its journal lines
 * (skipped if the journal has their seq), send its reports to meta (fixed ids: a re-send finds the copy
 * already delivered), and make the registry status agree with the lifecycle (paused ⇄ active). Runs under
 * the team's state lock. Failures do not undo the saved state; they are returned as warnings and retried
 * on the next load. `shared`: the registry as the caller read it under the same section (one read per
 * apply, shared by the reports and the status sync); read here when not given, and forgotten once the
 * status sync has written the registry (it is stale then).
 */
export async function settleEffects(
  fed: Federation,
  team: RegistryEntry,
  lifecycle: TeamLifecycle,
  options: WriteOptions,
  shared: SharedRegistry = {},
): Promise<string[]> {
  if (!lifecycle.stored) return [];
  const { backend } = fed;
  const { envelope } = lifecycle;
  const key = `${envelope.seq}@${envelope.savedAt}`;
  if (settled.get(team.location) === key) return [];
  const warnings: string[] = [];
  const attempt = async (what: string, effect: () => unknown) => {
    try {
      await effect();
    } catch (error) {
      warnings.push(`${what} for team "${team.domainId}" failed and will be retried: ${(error as Error).message}`);
    }
  };

  await attempt('appending the journal', () => backend.lifecycles.appendJournal(team, envelope.journalTail, options));
  for (const report of envelope.pendingReports) {
    await attempt(`reporting "${report.subject}" to meta`, () =>
      sendSignal(
        fed,
        {
          from: team.domainId,
          to: META,
          type: 'report',
          subject: report.subject,
          body: report.body,
          id: report.signalId,
        },
        { ...options, registry: shared.registry },
      ),
    );
  }
  await attempt('syncing the registry status', () => syncRegistryStatus(fed, team, lifecycle, shared));
  if (warnings.length === 0) settled.set(team.location, key);
  return warnings;
}

/**
 * What the stored envelope owes and has not done yet, one description each: journal lines the journal does
 * not have, reports meta's inbox does not hold — live or archived (`fed signal archive` moves a report
 * delivered long ago, which the envelope keeps listing until its next write). Reads only;
 * `settleTeamLifecycle` performs them (`fed doctor` names them, and `--fix` settles them).
 */
export async function owedEffects(fed: Federation, team: RegistryEntry, lifecycle: TeamLifecycle): Promise<string[]> {
  if (!lifecycle.stored) return [];
  const { backend } = fed;
  const { journalTail, pendingReports } = lifecycle.envelope;
  const owed: string[] = [];
  const lastSeq = (await backend.lifecycles.journalTail(team, 1)).at(-1)?.seq ?? 0;
  const lines = journalTail.filter((line) => line.seq > lastSeq);
  if (lines.length) owed.push(`${lines.length} journal line(s) from seq ${lines[0]!.seq}`);
  const registry = await backend.registry.read();
  for (const report of pendingReports) {
    const sent = await backend.delivery.get(report.signalId, 'sent');
    const id = report.signalId.toLowerCase();
    if (!(await findInBox(backend, registry, META, 'inbox', id, sent?.to === META ? sent : undefined)))
      owed.push(`the report "${report.subject}" to meta`);
  }
  // A pause or resume killed between the lifecycle write and the registry's: the registry follows the lifecycle.
  const current = findTeam(registry, team.domainId);
  const status = current && statusOwed(current, lifecycle);
  if (status) owed.push(`the registry status "${status}" (the registry says "${statusOf(current)}")`);
  return owed;
}

/** The registry status the lifecycle asks for when the registry says otherwise (paused ⇄ active); undefined when they agree. */
function statusOwed(entry: RegistryEntry, lifecycle: TeamLifecycle): TeamStatus | undefined {
  const status = statusOf(entry);
  const paused = lifecycle.snapshot.value === 'paused';
  const running = lifecycle.snapshot.status === 'active' && !paused;
  if (paused && status === 'active') return 'paused';
  if (running && status === 'paused') return 'active';
  return undefined;
}

/**
 * Registry status and lifecycle never contradict each other: a paused lifecycle means a paused team, and
 * a running lifecycle of a team marked paused means it was resumed. The lifecycle is the truth because it
 * is always written first (by a `pause`/`resume` directive or by `fed team pause|resume`).
 */
async function syncRegistryStatus(
  fed: Federation,
  team: RegistryEntry,
  lifecycle: TeamLifecycle,
  shared: SharedRegistry,
): Promise<void> {
  const read = shared.registry ?? (await fed.backend.registry.read());
  const current = findTeam(read, team.domainId);
  if (!current) return;
  const wanted = statusOwed(current, lifecycle);
  if (!wanted) return;
  shared.registry = undefined;
  await writeRegistryStatus(fed, team.domainId, { type: wanted === 'paused' ? 'PAUSE' : 'RESUME' }, { current: read });
  shared.synced = wanted;
}
