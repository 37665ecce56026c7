import type { Federation } from '../../engine/context.js';
import { listHosts } from '../hosts/list-hosts.js';
import { moveTeam } from '../hosts/move-team.js';
import type { ServeEvent } from './serve-events.js';

/**
 * What a server looks at on each heartbeat: the hosts that were lost (no heartbeat for
 * `serve.hostLostAfter`) with teams placed on them — told once per loss — and, with `serve.failover:
 * "auto"`, those teams moved to this host. Every alive server tries; the registry's compare-and-swap
 * lets one win each team, and the others find it moved.
 */
export function hostWatch(fed: Federation, host: string, emit: (event: ServeEvent) => void): () => Promise<void> {
  const told = new Set<string>();
  // A move refused again on every heartbeat (a worktree team's commit not pushed yet) is said once per reason.
  const refused = new Map<string, string>();
  return async () => {
    const view = await listHosts(fed);
    if (!view.shared) return;
    for (const lost of view.hosts) {
      if (lost.state !== 'lost' || lost.teams.length === 0) continue;
      const loss = `${lost.name}\0${lost.heardAt}`;
      if (!told.has(loss)) {
        told.add(loss);
        emit({
          kind: 'host-lost',
          at: new Date().toISOString(),
          host: lost.name,
          lastHeard: lost.heardAt,
          teams: lost.teams,
        });
      }
      if (fed.config.serve?.failover !== 'auto') continue;
      for (const team of lost.teams) {
        try {
          const moved = await moveTeam(fed, team, host, { from: lost.name });
          refused.delete(team);
          if (moved.moved)
            emit({ kind: 'moved', at: new Date().toISOString(), team, from: moved.from, to: host, by: 'failover' });
        } catch (error) {
          const why = (error as Error).message;
          if (refused.get(team) === why) continue;
          refused.set(team, why);
          emit({
            kind: 'warning',
            at: new Date().toISOString(),
            text: `${team}: not moved from lost host ${lost.name}: ${why}`,
          });
        }
      }
    }
  };
}
