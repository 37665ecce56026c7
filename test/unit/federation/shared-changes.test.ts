import { describe, expect, it } from 'vitest';
import type { FederationChange, FederationChanges } from 'fed';
import { sharedChanges } from '../../../src/engine/federation/shared-changes.js';

/** A feed that counts the watches it opens and lets the test emit changes and errors on them. */
function countingFeed() {
  const opened: { listener: (change: FederationChange) => void; onError?: (error: Error) => void; closed: boolean }[] =
    [];
  const feed: FederationChanges = {
    watch(listener, onError) {
      const watch = { listener, onError, closed: false };
      opened.push(watch);
      return { ready: Promise.resolve(), close: async () => void (watch.closed = true) };
    },
  };
  return { feed, opened };
}

describe('sharedChanges', () => {
  it('opens one watch of the source for every listener, tells each, and closes it once', async () => {
    const { feed, opened } = countingFeed();
    const shared = sharedChanges(feed);
    const heard: string[] = [];
    const errors: string[] = [];
    const first = shared.watch(
      (c) => heard.push(`first ${c.scope}`),
      (e) => errors.push(`first ${e.message}`),
    );
    const second = shared.watch((c) => heard.push(`second ${c.scope}`));
    await Promise.all([first.ready, second.ready]);
    expect(opened).toHaveLength(1);

    opened[0]!.listener({ scope: 'registry' });
    await first.close();
    opened[0]!.listener({ scope: 'journal' });
    opened[0]!.onError?.(new Error('the watch broke'));
    expect(heard).toEqual(['first registry', 'second registry', 'second journal']);
    expect(errors).toEqual([]);

    expect(opened[0]!.closed).toBe(false);
    await shared.close();
    expect(opened[0]!.closed).toBe(true);
  });

  it('tells each listener that the source broke', async () => {
    const { feed, opened } = countingFeed();
    const shared = sharedChanges(feed);
    const errors: string[] = [];
    shared.watch(
      () => undefined,
      (e) => errors.push(`a ${e.message}`),
    );
    shared.watch(
      () => undefined,
      (e) => errors.push(`b ${e.message}`),
    );
    opened[0]!.onError?.(new Error('closed for good'));
    expect(errors).toEqual(['a closed for good', 'b closed for good']);
    await shared.close();
  });
});
