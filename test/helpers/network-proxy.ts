import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { hostPolicy, type HostPolicy, NetworkProxy, type ProxiedConnection } from 'fed/testing';

export const policyOf = (allow: string[], provider: string[] = []) => hostPolicy({ allow }, provider) as HostPolicy;

/**
 * A proxy for `policy` on a local listener, names resolved by `names` (no DNS); what it records, and its
 * port. `closers` gets what stops it, for the test's afterEach.
 */
export async function startProxy(
  closers: (() => void)[],
  policy: HostPolicy,
  names: Record<string, string[]> = {},
): Promise<{ seen: ProxiedConnection[]; port: number }> {
  const seen: ProxiedConnection[] = [];
  const proxy = new NetworkProxy(
    policy,
    (connection) => seen.push(connection),
    async (host) => {
      if (!names[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return names[host];
    },
  );
  const listener: Server = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  proxy.serve(listener);
  closers.push(() => proxy.close());
  return { seen, port: (listener.address() as AddressInfo).port };
}
