import type { NetworkHostRecord, NetworkRunRecord } from '../../../../core/schema/network-policy.js';
import type { ProxiedConnection } from './network-proxy.js';

/** More distinct hosts than this in one run are counted together: an agent cannot grow its run record without end. */
const MAX_HOSTS = 100;
const OTHER_HOSTS = '(other hosts)';

/** What a run's proxy saw, host by host (host, port and verdict together), in the order first seen. */
export class NetworkLog {
  private readonly hosts = new Map<string, NetworkHostRecord>();

  constructor(private readonly policy: string) {}

  add(connection: ProxiedConnection): void {
    let key = `${connection.allowed ? '+' : '-'}${connection.host}:${connection.port}`;
    const host = this.hosts.size >= MAX_HOSTS && !this.hosts.has(key) ? OTHER_HOSTS : connection.host;
    if (host === OTHER_HOSTS) key = `${connection.allowed ? '+' : '-'}${OTHER_HOSTS}`;
    const known = this.hosts.get(key);
    const port = host === OTHER_HOSTS ? 0 : connection.port;
    this.hosts.set(key, {
      host,
      port,
      allowed: connection.allowed,
      connections: (known?.connections ?? 0) + 1,
      bytesUp: (known?.bytesUp ?? 0) + connection.bytesUp,
      bytesDown: (known?.bytesDown ?? 0) + connection.bytesDown,
      ...((connection.reason ?? known?.reason) ? { reason: connection.reason ?? known?.reason } : {}),
    });
  }

  record(): NetworkRunRecord {
    return { policy: this.policy, hosts: [...this.hosts.values()] };
  }
}

/** A run's network in one line: "provider: api.anthropic.com — 3 hosts, 1 refused: paste.example:443". */
export function networkSummary(record: NetworkRunRecord): string {
  const hosts = new Set(record.hosts.map((host) => `${host.host}:${host.port}`));
  const refused = record.hosts.filter((host) => !host.allowed).map((host) => `${host.host}:${host.port}`);
  const shown = refused.slice(0, 3).join(', ') + (refused.length > 3 ? `, … (${refused.length} in all)` : '');
  const seen =
    hosts.size === 0
      ? 'no connection'
      : `${hosts.size} host${hosts.size === 1 ? '' : 's'}, ${refused.length ? `${refused.length} refused: ${shown}` : 'none refused'}`;
  return `network ${record.policy} — ${seen}`;
}
