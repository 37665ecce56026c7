import { RefusedError } from '../../../../core/errors.js';
import type { NetworkPolicy } from '../../../../core/schema/network-policy.js';
import type { HostPolicy } from './host-policy.js';

/** A team whose network policy cannot be enforced here is not launched with an open network instead. */
export function networkUnavailable(teamId: string, policy: HostPolicy, why: string): RefusedError {
  return new RefusedError(
    'NETWORK_POLICY_UNAVAILABLE',
    `team "${teamId}" has the network policy ${policy.label}, which needs a sandbox with a network of its own, and ${why}; install bubblewrap where user namespaces are allowed (apt-get install bubblewrap), or let this team's agent reach any host: "agent": { "teams": { "${teamId}": { "network": "open" } } } in federate.config.json`,
  );
}

/**
 * A team whose config sets it a network policy (other than "open") while its sandbox is off (`sandboxFrom`:
 * `agent.sandbox`, or the team's own `agent.teams.<id>.sandbox`): its agent would run with the machine's
 * network, the policy silently dropped.
 */
export function unsandboxedPolicy(
  teamId: string,
  policy: NetworkPolicy,
  field: string,
  sandboxFrom: string,
): RefusedError {
  return new RefusedError(
    'NETWORK_POLICY_UNAVAILABLE',
    `team "${teamId}" has the network policy ${JSON.stringify(policy)} (${field}), which needs the sandbox, and ${sandboxFrom} is false: its agent would run with this machine's network; turn the sandbox on (leave ${sandboxFrom} out of federate.config.json), or let this team's agent reach any host: set ${field} to "open"`,
  );
}
