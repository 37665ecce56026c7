import { z } from 'zod';
import { describeValue } from './problems.js';

/**
 * `agent.network`: what a sandboxed agent may reach (docs/threat-model.md#the-network-policy). The agent
 * runs in a network namespace of its own; its only way out is fed's proxy, which lets a connection through
 * when its host (and port) is allowed:
 * - `"provider"` (default): the hosts the team's agent CLI needs for its model provider (its preset names
 *   them), plus `allow` when given as `{ "provider": true, "allow": [...] }`;
 * - `"none"`: no host at all (loopback inside the sandbox only);
 * - `{ "allow": ["host", "*.example.com", "host:port"] }`: exactly these;
 * - `"open"`: no network namespace, no proxy — the machine's network, as an unsandboxed process has it.
 */
export const NETWORK_MODES = ['provider', 'none', 'open'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** One allowed host as written: a name, a wildcard over whole labels, or an IP literal; any port, or one. */
export interface HostEntry {
  /** Lowercase, no trailing dot; for a wildcard the suffix after `*.`; an IPv6 literal without brackets. */
  host: string;
  kind: 'name' | 'wildcard' | 'ip';
  /** Absent: any port. */
  port?: number;
}

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 or 6 for an IP address literal, else 0 (as node:net's isIP; this module is the dashboard's too, which has no node:net). */
function isIP(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  if (!text.includes(':')) return 0;
  try {
    new URL(`http://[${text}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/**
 * The sandbox's own ports on its loopback: fed's proxy and the broker (src/apps/launch/supervise/network/). Its
 * network namespace is its own, with nothing else listening, so fixed ports collide with nothing and the
 * agent's environment can name them before it starts.
 */
export const SANDBOX_PROXY_PORT = 3128;
/** The broker's port there: a Unix socket cannot be made in the sandbox. */
export const SANDBOX_BROKER_PORT = 3129;

/**
 * A port of this machine's loopback the policy lists (`127.0.0.1:4000`, `localhost:11434`: a local model
 * server or gateway), or why such an entry cannot be one. Inside the sandbox the loopback is its own, so
 * fed forwards exactly the ports listed, one by one, to the machine's.
 */
function loopbackEntry(host: string, kind: 'name' | 'ip', port: number | undefined): string | undefined {
  const loopback = host === 'localhost' || (kind === 'ip' && (host === '::1' || host.startsWith('127.')));
  if (!loopback) return undefined;
  if (host !== 'localhost' && host !== '127.0.0.1')
    return `a host on this machine is written 127.0.0.1:<port> or localhost:<port> (the sandbox forwards its own 127.0.0.1)`;
  if (port === undefined)
    return `a host on this machine needs its port (like ${host}:4000): the sandbox's loopback is its own, and fed forwards only the ports listed`;
  if (port === SANDBOX_PROXY_PORT || port === SANDBOX_BROKER_PORT)
    return `port ${port} is the sandbox's own (fed's proxy ${SANDBOX_PROXY_PORT}, its broker ${SANDBOX_BROKER_PORT}); run the local server on another port`;
  return undefined;
}

/** The loopback port an allowed entry forwards into the sandbox, if it is one (`127.0.0.1:4000`, `localhost:4000`). */
export function loopbackPort(entry: HostEntry): number | undefined {
  return entry.host === 'localhost' || entry.host === '127.0.0.1' ? entry.port : undefined;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `text` split into host and port (`host:port`, `[v6]:port`, a bare IPv6 literal), or why it cannot be. */
function splitPort(text: string): { host: string; port?: number } | string {
  if (isIP(text) === 6) return { host: text };
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const [host, portText] = bracketed ? [bracketed[1]!, bracketed[2]] : text.split(/:(?=[^:]*$)/);
  if (bracketed && isIP(host) !== 6) return `"${host}" in brackets is not an IPv6 address`;
  if (portText === undefined) return { host: host! };
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) return `"${portText}" is not a port (1-65535)`;
  return { host: host!, port };
}

/** An allowed host entry parsed, or the reason it is not one (said with the entry). */
export function parseHostEntry(text: string): HostEntry | string {
  const split = splitPort(text.trim().toLowerCase());
  if (typeof split === 'string') return split;
  const { port } = split;
  const host = split.host.replace(/\.$/, '');
  if (isIP(host)) return loopbackEntry(host, 'ip', port) ?? { host, kind: 'ip', ...(port ? { port } : {}) };
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host;
  if (host === '*' || host.includes('*', wildcard ? 2 : 0))
    return 'a wildcard is "*." before whole labels (like "*.example.com"); for any host use "open"';
  const labels = name.split('.');
  if (name.length > 253 || !labels.every((label) => LABEL.test(label)))
    return 'expected a host name (labels of letters, digits and hyphens), "*.<name>", or an IP address';
  if (wildcard && labels.length < 2) return `"*.${name}" would match a whole top-level domain; name one below it`;
  // All-numeric labels are an IP in another spelling (127.1, 0x7f.1 resolve to loopback): written as one.
  if (labels.every((label) => /^(?:0x[0-9a-f]*|\d+)$/.test(label)))
    return 'a number in place of a name is an IP address in another form; write it as an IP address (like 127.0.0.1)';
  if (!wildcard) {
    const refused = loopbackEntry(name, 'name', port);
    if (refused) return refused;
  }
  return { host: name, kind: wildcard ? 'wildcard' : 'name', ...(port ? { port } : {}) };
}

const hostEntrySchema = z
  .string({ error: (issue) => `expected a host such as "api.example.com", got ${describeValue(issue.input)}` })
  .superRefine((text, ctx) => {
    const parsed = parseHostEntry(text);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `"${text}": ${parsed}` });
  });

const NETWORK_EXPECTED = '"provider", "none", "open" or { "allow": ["host", "*.example.com", "host:port"] }';

export const networkPolicySchema = z.union(
  [
    z.enum(NETWORK_MODES),
    z.strictObject({
      /** Also the hosts the team's agent CLI needs for its provider (as `"provider"`). */
      provider: z.boolean({ error: (issue) => `expected true or false, got ${describeValue(issue.input)}` }).optional(),
      allow: z.array(hostEntrySchema, {
        error: (issue) =>
          issue.input === undefined
            ? 'expected an array of hosts such as ["api.example.com"], got nothing (the field is missing; for the provider\'s hosts alone write "provider" in place of the object)'
            : `expected an array of hosts such as ["api.example.com"], got ${describeValue(issue.input)}`,
      }),
    }),
  ],
  { error: (issue) => `expected ${NETWORK_EXPECTED}, got ${describeValue(issue.input)}` },
);
export type NetworkPolicy = z.output<typeof networkPolicySchema>;

/** The policy a sandboxed agent gets when neither the federation nor its team names one. */
export const DEFAULT_NETWORK_POLICY: NetworkPolicy = 'provider';

/**
 * What the proxy saw of one host during a run (host, port and verdict together): how many connections,
 * the bytes each way, and why it was refused.
 */
export const networkHostRecordSchema = z.strictObject({
  host: z.string(),
  port: z.number().int(),
  allowed: z.boolean(),
  connections: z.number().int().nonnegative(),
  bytesUp: z.number().int().nonnegative(),
  bytesDown: z.number().int().nonnegative(),
  /** Why it was refused (the policy, a private address, a TLS server name that differs). */
  reason: z.string().optional(),
});
export type NetworkHostRecord = z.output<typeof networkHostRecordSchema>;

/** A run's network: its policy in words, and every host its agent tried (in the order first seen). */
export const networkRunRecordSchema = z.strictObject({
  policy: z.string(),
  hosts: z.array(networkHostRecordSchema),
});
export type NetworkRunRecord = z.output<typeof networkRunRecordSchema>;
