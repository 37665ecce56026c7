import type { ChangeWatch, FederationChanges } from '../../ports/federation-changes.js';

/**
 * One watch of a backend's change feed shared by every listener of a long-running process (`fed serve`
 * and the dashboard it serves): each would otherwise open a watch of its own — a watcher per team folder
 * on files, a subscription on JetStream. The watch opens with the first listener and closes with `close`.
 * A listener hears the changes made from when it joined: a change says where, never what, so one that
 * joins later reads what it needs anyway.
 */
export function sharedChanges(source: FederationChanges): FederationChanges & { close(): Promise<void> } {
  type Listener = { listener: Parameters<FederationChanges['watch']>[0]; onError?: (error: Error) => void };
  const listeners = new Set<Listener>();
  let shared: ChangeWatch | undefined;
  const open = () =>
    (shared ??= source.watch(
      (change) => {
        for (const { listener } of [...listeners]) listener(change);
      },
      (error) => {
        for (const { onError } of [...listeners]) onError?.(error);
      },
    ));
  return {
    watch(listener, onError) {
      const entry: Listener = { listener, onError };
      listeners.add(entry);
      return {
        ready: open().ready,
        close: async () => void listeners.delete(entry),
      };
    },
    async close() {
      listeners.clear();
      const watch = shared;
      shared = undefined;
      await watch?.close();
    },
  };
}
