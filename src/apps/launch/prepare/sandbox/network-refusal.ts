import { RefusedError } from '../../../../core/errors.js';
import type { HostPolicy } from './host-policy.js';

/** A team whose network policy cannot be enforced here is not launched with an open network instead. */
export function networkUnavailable(teamId: string, policy: HostPolicy, why: string): RefusedError {
  return new RefusedError(
    'NETWORK_POLICY_UNAVAILABLE',
    `team "${teamId}" has the network policy ${policy.label}, which needs a sandbox with a network of its own, and ${why}; install bubblewrap where user namespaces are allowed (apt-get install bubblewrap), or let this team's agent reach any host: "agent": { "teams": { "${teamId}": { "network": "open" } } } in federate.config.json`,
  );
}
