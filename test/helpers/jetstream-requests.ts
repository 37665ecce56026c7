import type { JetStreamBackend } from 'fed/testing';

/** What an operation cost on the wire: request–replies, the round trips they took, and their subjects. */
export interface RequestCount {
  requests: number;
  roundTrips: number;
  subjects: string[];
}

/**
 * Counts what an operation costs on the wire: every request–reply of the backend's connection (a KV get
 * or create, a publish, a stream or consumer request), and the round trips they take — a request made
 * while another is still waiting for its reply rides in the same round trip. Deterministic: a reply needs
 * the socket, so requests made in one turn of the event loop are all out before any reply is read.
 */
export async function countedSession(backend: JetStreamBackend) {
  const { session } = await backend.streams();
  const nc = session.nc;
  const request = nc.request.bind(nc);
  const counts: RequestCount = { requests: 0, roundTrips: 0, subjects: [] };
  let inFlight = 0;
  nc.request = async (...args: Parameters<typeof nc.request>) => {
    counts.requests++;
    counts.subjects.push(args[0]);
    if (inFlight++ === 0) counts.roundTrips++;
    try {
      return await request(...args);
    } finally {
      inFlight--;
    }
  };
  return {
    measure: async (op: () => Promise<unknown>): Promise<RequestCount> => {
      counts.requests = 0;
      counts.roundTrips = 0;
      counts.subjects = [];
      await op();
      return { ...counts, subjects: [...counts.subjects] };
    },
  };
}
