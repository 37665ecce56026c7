import { isReplicasNotSupported } from './jetstream-errors.js';
import { JetStreamSetupError } from './setup-error.js';

/**
 * What is wrong, and its fix, when `backend.replicas` asks a single NATS server (not a cluster) for more
 * than one copy of each stream and bucket. `where` names the servers (redacted).
 */
export function singleNodeReplicas(replicas: number, where: string): { problem: string; fix: string } {
  return {
    problem: `backend.replicas asks for ${replicas} copies of every stream and bucket, but the NATS server at ${where} is a single node, not a cluster`,
    fix: `set backend.replicas to 1 in federate.config.json, or run a JetStream cluster of at least ${replicas} nodes and list them in backend.servers`,
  };
}

/**
 * A single NATS server's refusal to make a stream or bucket with `backend.replicas` copies (nats-server's
 * "replicas > 1 not supported in non-clustered mode") as a JetStreamSetupError naming the setting and its
 * fix; any other error as it is.
 */
export function explainReplicasRefusal(
  session: { servers: readonly string[]; replicas: number },
  error: unknown,
): unknown {
  if (!isReplicasNotSupported(error)) return error;
  const { problem, fix } = singleNodeReplicas(session.replicas, session.servers.join(', '));
  return new JetStreamSetupError(session.servers, `${problem}: it refuses to keep more than one copy`, fix, error);
}
