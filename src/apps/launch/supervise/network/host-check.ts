import { BlockList, isIP } from 'node:net';
import type { HostPolicy } from '../../prepare/sandbox/host-policy.js';

/**
 * A connection the sandbox's proxy is asked for, checked against the run's host policy
 * (prepare/sandbox/host-policy.ts) — by the name or address the client gives, before any DNS — and the
 * addresses only an explicit entry may lead to.
 */
export type HostVerdict = { allowed: true; explicit: boolean } | { allowed: false; reason: string };

/** The host as a connection names it: lowercase, no brackets, no trailing dot. */
export function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** Whether `host:port` (as a client names it, before any DNS) is allowed, and how explicitly. */
export function checkHost(policy: HostPolicy, rawHost: string, port: number): HostVerdict {
  const host = normalHost(rawHost);
  const ip = isIP(host);
  if (!ip && host.split('.').every((label) => /^(?:0x[0-9a-f]*|\d+)$/.test(label)))
    return { allowed: false, reason: 'a number in place of a host name (an IP address in another form)' };
  let explicit: boolean | undefined;
  for (const entry of policy.entries) {
    if (entry.port !== undefined && entry.port !== port) continue;
    const matches = ip
      ? entry.kind === 'ip' && sameAddress(entry.host, host)
      : entry.kind === 'name'
        ? entry.host === host
        : // Whole labels: "*.example.com" matches "a.example.com", never "evil-example.com" nor "example.com".
          entry.kind === 'wildcard' && host.endsWith(`.${entry.host}`);
    if (matches) explicit = explicit || entry.explicit;
  }
  if (explicit === undefined)
    return { allowed: false, reason: ip ? 'an IP address the policy does not list' : 'not in the policy' };
  return { allowed: true, explicit };
}

function sameAddress(a: string, b: string): boolean {
  const list = new BlockList();
  list.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  return list.check(b, isIP(b) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Addresses no policy reaches by a name or a wildcard: this machine and its networks (loopback, private,
 * link-local — where a cloud's metadata endpoint answers — carrier-grade NAT, unspecified, multicast,
 * reserved). Only an address or name listed explicitly may lead there.
 */
const PRIVATE = (() => {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 3],
  ] as const)
    list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['64:ff9b::', 96],
    ['2002::', 16],
  ] as const)
    list.addSubnet(net, bits, 'ipv6');
  return list;
})();

/** Whether `address` is one of this machine's or its private networks' (an IPv4-mapped IPv6 one by its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}
