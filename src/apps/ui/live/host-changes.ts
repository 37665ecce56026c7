import type { Federation } from '../../../engine/context.js';
import type { ChangeWatch, FederationChange } from '../../../ports/federation-changes.js';
import type { HeardHost } from '../../../ports/host-directory.js';
import { hostState, lostAfterMs } from '../../hosts/host-liveness.js';

/**
 * Tell the dashboard's pages when what they show of the hosts changes (`{ scope: 'hosts' }`): a host
 * started, stopped, was lost or came back, or changed its capacity, its running agents or its version.
 * Every host renews its record every few seconds; a renewal that changes none of that is not told. A host
 * is lost with no write at all, when its last heartbeat is too old: one timer, set at the earliest lost
 * deadline of the alive hosts and set again at every write, tells it — nothing polls. Nothing on a backend
 * without hosts (files). `onError`: the watch could not start or broke (it ends).
 */
export function watchHostChanges(
  fed: Federation,
  tell: (change: FederationChange) => void,
  onError?: (error: Error) => void,
): ChangeWatch {
  const directory = fed.backend.hosts;
  if (!directory) return { ready: Promise.resolve(), close: async () => undefined };
  const heard = new Map<string, HeardHost>();
  let shown: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const stateOf = (host: HeardHost) => hostState(fed.config.serve, host, fed.now()).state;
  /** What the pages show of the hosts, but how long ago each was heard (that changes every heartbeat). */
  const view = () =>
    JSON.stringify(
      [...heard.values()]
        .map(({ record }) => record)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((record) => [
          record.name,
          stateOf(heard.get(record.name)!),
          record.capacity,
          record.running,
          record.version,
        ]),
    );
  const lostDeadline = () => {
    clearTimeout(timer);
    const deadlines = [...heard.values()]
      .filter((host) => stateOf(host) === 'alive')
      .map((host) => host.heardAt.getTime() + lostAfterMs(fed.config.serve, host));
    if (deadlines.length === 0) return;
    // A host is lost once its age is past the deadline, not at it: a millisecond after.
    timer = setTimeout(check, Math.max(0, Math.min(...deadlines) - fed.now().getTime()) + 1);
    // The timer alone never keeps the process alive.
    timer.unref();
  };
  function check(): void {
    if (closed || shown === undefined) return;
    const now = view();
    if (now !== shown) tell({ scope: 'hosts' });
    shown = now;
    lostDeadline();
  }

  const watch = directory.watch((host) => {
    const before = heard.get(host.record.name);
    if (before && before.heardAt > host.heardAt) return;
    heard.set(host.record.name, host);
    check();
  }, onError);
  // Listed once the watch hears every write, so no write falls between the list and the watch.
  const ready = watch.ready.then(async () => {
    for (const host of await directory.list()) {
      const before = heard.get(host.record.name);
      if (!before || before.heardAt < host.heardAt) heard.set(host.record.name, host);
    }
    shown = view();
    lostDeadline();
  });
  ready.catch((error: unknown) => onError?.(error as Error));
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await watch.close();
    },
  };
}
