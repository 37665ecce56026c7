/**
 * A host's record as a `fed serve` announces it (src/core/schema/host.ts), for tests that play a host
 * without running a server: host build-2 at /srv/build-2, alive, with what `changes` sets.
 */
export function hostRecord<T extends object>(changes: T) {
  return {
    name: 'build-2',
    root: '/srv/build-2',
    pid: 4242,
    version: '1.0.0',
    capacity: 2,
    running: [] as string[],
    startedAt: new Date().toISOString(),
    heartbeatMs: 60_000,
    stoppedAt: null,
    ...changes,
  };
}
