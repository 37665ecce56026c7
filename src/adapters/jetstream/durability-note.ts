/**
 * What a JetStream federation may lose on a power cut, from the server version and the replica count.
 * JetStream acknowledges a write once it is in the OS's buffers and forces it to disk periodically (every
 * two minutes by default); nats-server 2.10 added `sync_interval: always`, which 2.9 (Debian's) lacks.
 * A process crash loses nothing either way; a power loss of a lone node can lose the last acknowledged
 * writes — unless every write is on three nodes.
 */
export function durabilityNote(serverVersion: string, replicas: number): string | undefined {
  if (replicas >= 3) return undefined;
  const [major = 0, minor = 0] = serverVersion.split('.').map((part) => Number.parseInt(part, 10));
  const copies = replicas === 1 ? 'one copy' : `${replicas} copies`;
  if (major < 2 || (major === 2 && minor < 10)) {
    return (
      `nats-server ${serverVersion} syncs JetStream data to disk periodically (every 2 minutes by default) and cannot sync every write: ` +
      `with ${copies} of each stream, a power loss can lose the last acknowledged signals, acks and state changes (a crash of the server process loses nothing). ` +
      'Use "replicas": 3 on a 3-node cluster, or nats-server 2.10 or later with jetstream { sync_interval: always }'
    );
  }
  return (
    `nats-server ${serverVersion} with ${copies} of each stream: unless it runs with jetstream { sync_interval: always }, ` +
    'a power loss can lose the last acknowledged writes (it syncs every 2 minutes by default); or use "replicas": 3 on a 3-node cluster'
  );
}
