import { statusOf } from '../../core/find-team.js';
import { thisHostName } from '../../core/host-name.js';
import type { HostRecord } from '../../core/schema/host.js';
import { ANY_HOST } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { hostState, type HostState } from './host-liveness.js';
import type { StoreContact } from './store-contact.js';

/** One host as `fed hosts` and the dashboard show it. */
export interface HostView {
  name: string;
  state: HostState;
  /** How long ago it was last heard from (ms). */
  ageMs: number;
  heardAt: string;
  capacity: number;
  /** The teams whose agents run there now, as its last heartbeat said. */
  running: string[];
  /** The teams placed on it (not archived): the ones only its server dispatches. */
  teams: string[];
  version: string;
  root: string;
  pid: number;
  startedAt: string;
}

export type HostsView =
  /** Files: every team works on this one machine, whose name is given. */
  | { shared: false; host: string }
  | {
      shared: true;
      /** By name. */
      hosts: HostView[];
      /** Teams placed on a host that never announced itself (no `fed serve` ran there yet). */
      unserved: { team: string; host: string | null }[];
    };

/**
 * The hosts serving the federation, alive, stopped or lost, with the teams placed on each. `watching`: a
 * server's touch with the store, which acts on a loss — told of this read's answer, and a host lost only on
 * silence it could have heard (hostState).
 */
export async function listHosts(fed: Federation, watching?: StoreContact): Promise<HostsView> {
  const directory = fed.backend.hosts;
  if (!directory) return { shared: false, host: thisHostName(fed.config) };
  const [heard, registry] = await Promise.all([directory.list(), fed.backend.registry.read()]);
  const now = fed.now();
  watching?.answered(now);
  const watchingSince = watching?.since(now);
  const placed = new Map<string | null, string[]>();
  for (const team of registry.teams) {
    if (statusOf(team) === 'archived') continue;
    const host = team.host ?? null;
    placed.set(host, [...(placed.get(host) ?? []), team.domainId]);
  }
  const hosts = heard.map((host): HostView => {
    const { state, ageMs } = hostState(fed.config.serve, host, now, watchingSince);
    return {
      ...recordView(host.record),
      state,
      ageMs,
      heardAt: host.heardAt.toISOString(),
      teams: placed.get(host.record.name) ?? [],
    };
  });
  const known = new Set(hosts.map((host) => host.name));
  // Unplaced teams are any alive host's: served while one is.
  const unserved = [...placed]
    .filter(([host]) => host !== ANY_HOST && (host === null || !known.has(host)))
    .flatMap(([host, teams]) => teams.map((team) => ({ team, host })));
  return { shared: true, hosts, unserved };
}

function recordView(record: HostRecord): Omit<HostView, 'state' | 'ageMs' | 'heardAt' | 'teams'> {
  const { name, capacity, running, version, root, pid, startedAt } = record;
  return { name, capacity, running, version, root, pid, startedAt };
}
