import { DEFAULT_ADAPTER, openBackend } from '../../adapters/index.js';
import { describeLockOwner } from '../../infra/fs/lock.js';
import { RefusedError } from '../../core/errors.js';
import type { Federation } from '../../engine/context.js';
import { copyFederation, type CopyFederationResult } from '../../engine/migration/copy-federation.js';
import { fromFileFederation, intoFileFederation } from '../../engine/migration/file-workspaces.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { hostState } from '../hosts/host-liveness.js';
import { keepTeamFiles, restoreTeamFiles } from '../hosts/team-files.js';
import { keepTranscripts, restoreTranscripts } from '../hosts/team-transcripts.js';
import { serveLeases, serverHost } from '../serve/serve-lease.js';

/**
 * `fed migrate`: a whole federation between files and a backend shared across machines (JetStream), as
 * copyFederation copies it, plus what only the shared backend has:
 *
 * - the teams' own files (deliverable, learning log, run records; team-files.ts) are the team's and go with
 *   it: into JetStream each is kept from its workspace here, so a later move to another host finds them;
 *   back into files each is written into the team's workspace here where that lacks it (a workspace the copy
 *   made: the team worked on another host), never over one the workspace has (its own, newer);
 * - the runs' transcripts and prompts (team-transcripts.ts) likewise: each kept from its workspace, or
 *   written into one that lacks it (a run's files never change once it ended);
 * - the hosts are live state — which `fed serve` renews its heartbeat where — and are not copied: the
 *   servers of the new side announce themselves when they start;
 * - the unplaced teams' work queue is not copied either: every item is read from the team's state (its
 *   mission, signals, resume time), and a server starting on the new side offers it again, so nothing in
 *   it is lost; what a server had taken is work that server was running.
 *
 * So nothing may serve the federation while it moves: refused (SERVE_RUNNING) while a `fed serve` holds
 * its lease here or a host of the shared side is alive, before anything is written.
 */
export interface MigrateResult extends CopyFederationResult {
  /** Where it was copied from and to, for messages. */
  from: string;
  to: string;
  /** Team files kept into the shared backend, or written into workspaces here. */
  teamFiles: number;
  /** Runs' transcripts and prompts kept into the shared backend, or written into workspaces here. */
  transcripts: number;
}

/** The file federation here into the configured shared backend (`fed migrate to-<type>`). */
export async function migrateIntoBackend(fed: Federation): Promise<MigrateResult> {
  const source = fileSide(fed);
  await refuseWhileServed(fed);
  const copied = await copyFederation(source, fed.backend, fromFileFederation(fed.root));
  let teamFiles = 0;
  let transcripts = 0;
  for (const team of (await fed.backend.registry.read()).teams) {
    teamFiles += (await keepTeamFiles(fed, team)).length;
    transcripts += (await keepTranscripts(fed, team)).length;
  }
  return { from: source.registry.location, to: fed.backend.registry.location, ...copied, teamFiles, transcripts };
}

/** The configured shared federation into files here (`fed migrate to-files`). */
export async function migrateIntoFiles(fed: Federation): Promise<MigrateResult> {
  const target = fileSide(fed);
  await refuseWhileServed(fed);
  const copied = await copyFederation(fed.backend, target, intoFileFederation(fed.root));
  let teamFiles = 0;
  let transcripts = 0;
  for (const team of (await target.registry.read()).teams) {
    teamFiles += (await restoreTeamFiles(fed, team, { missingOnly: true })).length;
    transcripts += (await restoreTranscripts(fed, team)).length;
  }
  return { from: fed.backend.registry.location, to: target.registry.location, ...copied, teamFiles, transcripts };
}

/** The file federation here, the other side of a copy: the default backend, whichever the config selects. */
function fileSide({ root, config, env }: Federation): FederationBackend {
  return openBackend({ root, config: { ...config, backend: { type: DEFAULT_ADAPTER.type } }, env });
}

/**
 * Refused while a `fed serve` runs the federation: here (its lease), or on any host of the shared side (its
 * heartbeat). Each is named once, by the host name it serves as: the server here beats as a host too.
 */
async function refuseWhileServed(fed: Federation): Promise<void> {
  const here = serveLeases(fed.root).flatMap((lease) => (lease.holder !== 'gone' && lease.owner ? [lease.owner] : []));
  const serving = here.map((owner) => describeLockOwner({ ...owner, host: serverHost(owner) }));
  for (const host of (await fed.backend.hosts?.list()) ?? [])
    if (
      hostState(fed.config.serve, host, fed.now()).state === 'alive' &&
      !here.some((owner) => owner.pid === host.record.pid && serverHost(owner) === host.record.name)
    )
      serving.push(`host ${host.record.name} (pid ${host.record.pid}, heard from at ${host.heardAt.toISOString()})`);
  if (serving.length === 0) return;
  throw new RefusedError(
    'SERVE_RUNNING',
    `fed serve runs this federation (${serving.join('; ')}): what it dispatches during the copy could be missed; ` +
      'stop every fed serve of it first (SIGTERM lets its agents finish; a killed one counts as alive until it is lost), then migrate',
  );
}
