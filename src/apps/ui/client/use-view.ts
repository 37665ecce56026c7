import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { subscribe, type FederationChange } from './live.js';

/**
 * A view's data: fetched when the view mounts (or its key changes), fetched again when a live change
 * touches it. The last data stays on screen while a refetch runs, so a busy federation does not flicker;
 * an answer that arrives after a newer request was made is dropped.
 */
export interface ViewData<T> {
  data: T | null;
  error: string | null;
  reload(): void;
}

export function useView<T>(
  key: string,
  load: () => Promise<T>,
  touches: (change: FederationChange) => boolean,
): ViewData<T> {
  const [state, setState] = useState<{ key: string; data: T | null; error: string | null }>({
    key,
    data: null,
    error: null,
  });
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const touchesRef = useRef(touches);
  touchesRef.current = touches;

  const reload = useCallback(() => {
    const request = ++latest.current;
    loadRef.current().then(
      (data) => {
        if (request === latest.current) setState({ key, data, error: null });
      },
      (error: unknown) => {
        if (request === latest.current)
          setState((previous) => ({
            key,
            data: previous.key === key ? previous.data : null,
            error: error instanceof Error ? error.message : String(error),
          }));
      },
    );
  }, [key]);

  useEffect(() => {
    reload();
    return subscribe({ touches: (change) => touchesRef.current(change), refresh: reload });
  }, [reload]);

  // Data of the previous key (another team's page) is never shown under this one.
  return state.key === key ? { data: state.data, error: state.error, reload } : { data: null, error: null, reload };
}

/** Which live changes each view shows. */
export const touches = {
  /** Meta's boxes too: the board's needs-you total counts meta's open questions. */
  board: (change: FederationChange) => change.scope !== 'federation' && change.scope !== 'hosts',
  /** A lost host's teams are items. */
  needsYou: (change: FederationChange) => change.scope !== 'federation',
  /** The plan, the report and the telemetry state, the hosts, with health and runs from everything else. */
  federation: () => true,
  team: (team: string) => (change: FederationChange) =>
    change.scope === 'team' ? change.team === team : change.scope !== 'federation' && change.scope !== 'hosts',
  /** Everything: the dispatcher's state changes with any team's (a dispatch, an ending), schedules with the journal. */
  steering: () => true,
  signals: (change: FederationChange) =>
    change.scope === 'meta' ||
    change.scope === 'delivery' ||
    (change.scope === 'team' && (change.what === 'inbox' || change.what === 'outbox')),
};
