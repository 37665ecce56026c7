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
 * A team whose config sets it a network policy (other than "open") while `agent.sandbox` is false: its
 * agent would run with the machine's network, the policy silently dropped.
 */
export function unsandboxedPolicy(teamId: string, policy: NetworkPolicy, field: string): RefusedError {
  return new RefusedError(
    'NETWORK_POLICY_UNAVAILABLE',
    `team "${teamId}" has the network policy ${JSON.stringify(policy)} (${field}), which needs the sandbox, and agent.sandbox is false: its agent would run with this machine's network; turn the sandbox on (leave "sandbox": false out of agent in federate.config.json), or let this team's agent reach any host: set ${field} to "open"`,
  );
}

/**
 * A team that changes its own worktree (a coding team) runs its agent without the sandbox, whatever the
 * config says: a network policy set for that team alone would be silently dropped. (`agent.network`, for
 * every team, is documented to hold for the sandboxed ones.)
 */
export function policyOfUnsandboxedTeam(teamId: string, policy: NetworkPolicy, field: string): RefusedError {
  return new RefusedError(
    'NETWORK_POLICY_UNAVAILABLE',
    `team "${teamId}" has the network policy ${JSON.stringify(policy)} (${field}), which needs the sandbox, and a team that changes its own worktree runs its agent without it: its agent would run with this machine's network; remove ${field} from federate.config.json (or set it to "open"), or run this team's agent under a user and network of its own`,
  );
}
