/**
 * Backends this process opened that hold a network connection (JetStream), one per federation and
 * server list, so every operation of a command shares one connection. A module of its own, with nothing
 * heavy in it, so the CLI can close them after a command without loading any backend.
 */
export interface ClosableBackend {
  close(): Promise<void>;
}

const open = new Map<string, ClosableBackend>();

/** The backend opened under `key`, opening it with `create` the first time. */
export function sharedNetworkBackend<T extends ClosableBackend>(key: string, create: () => T): T {
  let backend = open.get(key) as T | undefined;
  if (!backend) {
    backend = create();
    open.set(key, backend);
  }
  return backend;
}

/** Close every network backend this process opened (an open connection keeps the process alive). Idempotent. */
export async function closeOpenBackends(): Promise<void> {
  const backends = [...open.values()];
  open.clear();
  await Promise.all(backends.map((backend) => backend.close()));
}
