import type { FederationChange, FederationChanges } from '../../../ports/federation-changes.js';
import { randomBytes } from '../../../infra/crypto/random.js';
import type { LiveEvent } from '../api-types.js';
import { EventRing } from './event-ring.js';

/** One Server-Sent Event as the server writes it. */
export interface SseMessage {
  id?: string;
  event: 'change' | 'reset' | 'ping' | 'stopped';
  data: string;
}

export interface LiveHub {
  /**
   * Replays what came after `lastEventId` (the SSE Last-Event-ID header), then streams; a `reset` first
   * when that id is unknown or too old (the page then re-reads everything). Returns the unsubscribe.
   */
  subscribe(lastEventId: string | undefined, send: (message: SseMessage) => void): () => void;
  /** Clients subscribed now (the bench and tests read it). */
  readonly clients: number;
  /**
   * Tell a change the server found itself (the clock made a team unhealthy, a signal overdue), numbered
   * and kept like the feed's.
   */
  announce(change: FederationChange): void;
  /** This hub's run id: every event id is `<run>-<seq>`, so an id of another run (a restart) is never resumed. */
  readonly run: string;
  /** Resolves once the hub hears every change made from then on. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface LiveHubOptions {
  now?: () => Date;
  /** How often every client gets a `ping` (default 20 s), so proxies and the browser keep the stream open. */
  heartbeatMs?: number;
  /** How many events are kept for Last-Event-ID (default 10,000). */
  keep?: number;
  /**
   * The change feed broke (e.g. the JetStream connection closed for good): no change is heard after it.
   * Every client, and every one that subscribes later, is sent a `stopped` event first.
   */
  onError?: (error: Error) => void;
}

export const DEFAULT_HEARTBEAT_MS = 20_000;
export const DEFAULT_KEEP = 10_000;

/**
 * The dashboard's live hub: ONE watch of the federation's changes however many browsers are connected,
 * each change numbered (seq from 1, its id `<run>-<seq>`) and kept for a while so a browser that reconnects with Last-Event-ID
 * gets what it missed, and ONE heartbeat timer for all of them — an idle server does nothing per client.
 */
export function createLiveHub(changes: FederationChanges, options: LiveHubOptions = {}): LiveHub {
  const now = options.now ?? (() => new Date());
  const ring = new EventRing<SseMessage>(options.keep ?? DEFAULT_KEEP);
  const clients = new Set<(message: SseMessage) => void>();
  const run = randomBytes(4).toString('hex');
  let stopped: SseMessage | undefined;

  const broadcast = (message: SseMessage) => {
    for (const send of [...clients]) deliver(send, message);
  };
  // A client whose stream broke is dropped, so one dead browser never stops the others' events.
  const deliver = (send: (message: SseMessage) => void, message: SseMessage) => {
    try {
      send(message);
    } catch {
      clients.delete(send);
    }
  };

  const announce = (change: FederationChange) => {
    const seq = ring.last + 1;
    const event: LiveEvent = { seq, at: now().toISOString(), change };
    const message: SseMessage = { id: `${run}-${seq}`, event: 'change', data: JSON.stringify(event) };
    ring.push(message);
    broadcast(message);
  };

  const watch = changes.watch(announce, (error) => {
    stopped = { event: 'stopped', data: JSON.stringify({ message: error.message }) };
    broadcast(stopped);
    options.onError?.(error);
  });

  const heartbeat = setInterval(
    () => broadcast({ event: 'ping', data: '' }),
    options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
  );
  // The heartbeat alone never keeps the process alive.
  heartbeat.unref();

  let closed = false;
  return {
    subscribe(lastEventId, send) {
      if (closed) return () => undefined;
      const missed = lastEventId === undefined ? [] : ring.after(parseEventId(run, lastEventId));
      if (missed === undefined) deliver(send, resetMessage(run, ring.last));
      else for (const message of missed) deliver(send, message);
      if (stopped) deliver(send, stopped);
      clients.add(send);
      return () => {
        clients.delete(send);
      };
    },
    get clients() {
      return clients.size;
    },
    run,
    announce,
    ready: watch.ready,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clients.clear();
      await watch.close();
    },
  };
}

/** The seq a Last-Event-ID of this run names; NaN when it names none or another run's (the ring answers it with a reset). */
function parseEventId(run: string, id: string): number {
  const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(id.trim());
  return match?.[1] === run ? Number(match[2]) : Number.NaN;
}

/**
 * A reset carries the latest seq as its id, so the browser resumes from there on its next reconnect
 * (an EventSource sends the last id it saw) instead of being reset again.
 */
function resetMessage(run: string, lastSeq: number): SseMessage {
  return { id: `${run}-${lastSeq}`, event: 'reset', data: JSON.stringify({ seq: lastSeq }) };
}
