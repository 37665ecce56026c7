import type { AgentConfig } from '../../../../core/schema/config.js';
import {
  DEFAULT_NETWORK_POLICY,
  loopbackPort,
  parseHostEntry,
  type HostEntry,
  type NetworkPolicy,
} from '../../../../core/schema/network-policy.js';

/**
 * A team's network policy made concrete for one run: the hosts its proxy lets through. `explicit`
 * entries — a name or an address the federation's config lists itself, not a wildcard nor a preset's
 * provider host — may lead to a private or loopback address; nothing else may.
 */
export interface HostPolicy {
  /** The policy in words, as the run record and `fed launch` say it. */
  label: string;
  entries: readonly (HostEntry & { explicit: boolean })[];
  /** The machine's loopback ports the config lists (`127.0.0.1:4000`): forwarded into the sandbox's own loopback. */
  forwarded: readonly number[];
}

/** The team's policy: its own entry in `agent.teams`, else the federation's `agent.network`, else the default. */
export function teamNetworkPolicy(agent: AgentConfig, teamId: string): NetworkPolicy {
  return configuredNetworkPolicy(agent, teamId)?.policy ?? DEFAULT_NETWORK_POLICY;
}

/** The policy the config sets for the team, and the field that sets it; undefined when it sets none. */
export function configuredNetworkPolicy(
  agent: AgentConfig,
  teamId: string,
): { policy: NetworkPolicy; field: string } | undefined {
  const own = agent.teams[teamId]?.network;
  if (own !== undefined) return { policy: own, field: `agent.teams.${teamId}.network` };
  return agent.network === undefined ? undefined : { policy: agent.network, field: 'agent.network' };
}

/** `"open"`, or the hosts allowed, given the hosts the team's agent CLI needs for its provider. */
export function hostPolicy(policy: NetworkPolicy, providerHosts: readonly string[]): 'open' | HostPolicy {
  if (policy === 'open') return 'open';
  const parse = (text: string, explicit: boolean) => {
    const entry = parseHostEntry(text);
    // The schema checked the config's entries and a test checks the presets': a failure here is a bug.
    if (typeof entry === 'string') throw new Error(`invalid host entry "${text}": ${entry}`);
    return { ...entry, explicit: explicit && entry.kind !== 'wildcard' };
  };
  const provider = policy === 'provider' || (typeof policy === 'object' && policy.provider === true);
  const added = typeof policy === 'object' ? policy.allow : [];
  const listed = [...(provider ? providerHosts : []), ...added];
  const entries = [
    ...(provider ? providerHosts.map((host) => parse(host, false)) : []),
    ...added.map((host) => parse(host, true)),
  ];
  const hosts = listed.slice(0, 4).join(', ');
  const more = entries.length > 4 ? `, … (${entries.length} in all)` : '';
  const label =
    policy === 'none' || entries.length === 0
      ? 'none (no host)'
      : `${provider ? 'provider' : 'allow'}: ${hosts}${more}`;
  const forwarded = entries.flatMap((entry) => {
    const port = entry.explicit ? loopbackPort(entry) : undefined;
    return port === undefined ? [] : [port];
  });
  return { label, entries, forwarded: [...new Set(forwarded)] };
}
