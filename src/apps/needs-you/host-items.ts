import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { Federation } from '../../engine/context.js';
import { listHosts } from '../hosts/list-hosts.js';
import { oneLine } from './signal-items.js';

/**
 * The teams placed on a lost host (no heartbeat for `serve.hostLostAfter`): nothing runs them until they
 * are moved to an alive host. One item per team and loss (its id names when the host was last heard), so
 * a host lost again later is told again.
 */
export async function lostHostNeedsYou(fed: Federation): Promise<NeedsYouItem[]> {
  const view = await listHosts(fed);
  if (!view.shared) return [];
  const alive = view.hosts.filter((host) => host.state === 'alive').map((host) => host.name);
  return view.hosts
    .filter((host) => host.state === 'lost')
    .flatMap((host) =>
      host.teams.map((team): NeedsYouItem => ({
        id: `host-lost:${team}:${host.name}:${host.heardAt}`,
        kind: 'host-lost',
        team,
        since: host.heardAt,
        summary: oneLine(`${team}: host lost — ${host.name} has not been heard from since ${host.heardAt}`),
        action: alive.length
          ? `move it to an alive host: fed team move ${team} --to ${alive[0]}`
          : `start fed serve on another machine, then: fed team move ${team} --to <that host>`,
        signalId: null,
        resumeAt: null,
      })),
    );
}
