import type { Federation } from '../../engine/context.js';
import { listHosts } from '../hosts/list-hosts.js';
import { moveTeam } from '../hosts/move-team.js';
import type { StoreContact } from '../hosts/store-contact.js';
import type { ServeEvent } from './serve-events.js';

/**
 * How long a refused failover waits before it is tried again: each try of a worktree team asks the
 * codebase's remote (`git ls-remote`), which on every heartbeat would be a remote call every few seconds.
 */
const REFUSED_RETRY_MS = 30_000;

/**
 * What a server looks at on each heartbeat: the hosts that were lost (no heartbeat for
 * `serve.hostLostAfter`) with teams placed on them — told once per loss — and, with `serve.failover:
 * "auto"`, those teams moved to this host. Every alive server tries; the registry's compare-and-swap
 * lets one win each team, and the others find it moved. A host is lost only on silence this server could
 * have heard (`watching`, its touch with the store: hostState), so none is taken for lost because the store
 * was out of reach of them all.
 */
export function hostWatch(
  fed: Federation,
  host: string,
  watching: StoreContact,
  emit: (event: ServeEvent) => void,
): () => Promise<void> {
  const told = new Set<string>();
  // A refused move (a worktree team's commit not pushed yet) is tried again after a while, and said once per reason.
  const refused = new Map<string, { why: string; at: number }>();
  return async () => {
    const view = await listHosts(fed, watching);
    if (!view.shared) return;
    for (const lost of view.hosts) {
      // This server runs: its own record gone stale (its store unreachable a while) is no loss of a host.
      if (lost.state !== 'lost' || lost.teams.length === 0 || lost.name === host) continue;
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
        const last = refused.get(team);
        if (last && fed.now().getTime() - last.at < REFUSED_RETRY_MS) continue;
        try {
          const moved = await moveTeam(fed, team, host, { from: lost.name, watching });
          refused.delete(team);
          if (moved.moved)
            emit({ kind: 'moved', at: new Date().toISOString(), team, from: moved.from, to: host, by: 'failover' });
        } catch (error) {
          const why = (error as Error).message;
          refused.set(team, { why, at: fed.now().getTime() });
          if (last?.why === why) continue;
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
