import { useEffect, useState } from 'preact/hooks';
import type { LiveEvent } from '../api-types.js';

/**
 * The page's one EventSource on `/events`. A `change` names where something changed; the views that show
 * it refetch, once per burst (changes are gathered for DEBOUNCE_MS). `reset` (the server lost track, or
 * the browser was away too long) and every (re)connection refetch every view; `stopped` (the server's
 * change feed broke) shows as "live updates stopped". Nothing polls.
 */
export type FederationChange = LiveEvent['change'];
/** `stopped`: the server's change feed broke (its `stopped` event): the page no longer updates by itself. */
export type LiveStatus = 'connecting' | 'connected' | 'reconnecting' | 'closed' | 'stopped';

const DEBOUNCE_MS = 100;

interface Subscriber {
  touches(change: FederationChange): boolean;
  refresh(): void;
}

const subscribers = new Set<Subscriber>();
const statusListeners = new Set<(status: LiveStatus) => void>();
let status: LiveStatus = 'connecting';
let pending: FederationChange[] = [];
let everything = false;
let timer: ReturnType<typeof setTimeout> | undefined;

function flush(): void {
  timer = undefined;
  const changes = pending;
  const all = everything;
  pending = [];
  everything = false;
  for (const subscriber of subscribers)
    if (all || changes.some((change) => subscriber.touches(change))) subscriber.refresh();
}

function schedule(): void {
  timer ??= setTimeout(flush, DEBOUNCE_MS);
}

/** Refetch every view now (after an action of this page, before its change arrives). */
export function refreshAll(): void {
  everything = true;
  schedule();
}

/** Listen for the views a change touches; returns the unsubscribe. */
export function subscribe(subscriber: Subscriber): () => void {
  subscribers.add(subscriber);
  return () => void subscribers.delete(subscriber);
}

function setStatus(next: LiveStatus): void {
  status = next;
  for (const listener of statusListeners) listener(next);
}

export function connectLive(): void {
  const source = new EventSource('/events');
  source.addEventListener('open', () => {
    // Every open, the first included: a change landing between a view's first fetch and the first
    // subscription is told to nobody. After a reconnection the server resumes from Last-Event-ID, or says
    // `reset`; reading again costs one fetch per view and covers a server that restarted.
    refreshAll();
    setStatus('connected');
  });
  source.addEventListener('error', () => {
    setStatus(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  });
  source.addEventListener('change', (event) => {
    try {
      const { change } = JSON.parse((event as MessageEvent<string>).data) as LiveEvent;
      // `all`: the server lost track of what changed (a reconnect to JetStream): every view reads again.
      if (change.scope === 'all') everything = true;
      else pending.push(change);
    } catch {
      everything = true;
    }
    schedule();
  });
  source.addEventListener('reset', () => refreshAll());
  // Nothing more will come: the stream is closed so the browser does not reconnect to be told again.
  source.addEventListener('stopped', () => {
    source.close();
    setStatus('stopped');
  });
}

export function useLiveStatus(): LiveStatus {
  const [current, setCurrent] = useState(status);
  useEffect(() => {
    statusListeners.add(setCurrent);
    setCurrent(status);
    return () => void statusListeners.delete(setCurrent);
  }, []);
  return current;
}
