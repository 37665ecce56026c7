import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initFederation, registrySchema } from 'fed';
import { federationPaths, readRegistry } from 'fed/testing';
import { startFixture, waitFor } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const WRITERS = 8;
const WRITES_EACH = 25;
/**
 * Writers give up if one lock acquisition waits longer. The SIGKILLed holder below is taken over at once (its
 * process is gone: test/integration/lock.test.ts shows it); this bound only says no live writer starves,
 * and it is wide because 8 writers on a loaded 2-core machine each wait behind the other 7 many times.
 */
const LOCK_WAIT_MS = 30_000;

describe('registry under concurrent writer processes', () => {
  it(`${WRITERS} processes × ${WRITES_EACH} writes: nothing lost, lockVersion = writes, readers never see torn JSON or a version going back`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const file = federationPaths(root).registry;

    // A lock holder SIGKILLed while holding the commit lock must not block the writers for long.
    const holder = startFixture('hold-lock.mjs', [federationPaths(root).registryLock]);
    let holderOut = '';
    holder.child.stdout?.on('data', (chunk: Buffer) => (holderOut += chunk.toString()));
    await waitFor(() => holderOut.includes('locked'), 15_000, 'the lock holder');
    holder.child.kill('SIGKILL');
    await holder.done;

    const writers = Array.from({ length: WRITERS }, (_, i) =>
      startFixture('registry-writer.mjs', [root, `w${i}`, String(WRITES_EACH), String(LOCK_WAIT_MS)]),
    );
    const finished = Promise.all(writers.map((w) => w.done));
    let running = true;
    void finished.then(() => (running = false));

    // Meanwhile read the registry as fast as possible, as a monitor would.
    let reads = 0;
    let lastVersion = 0;
    while (running) {
      const parsed = registrySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      expect(parsed.lockVersion).toBeGreaterThanOrEqual(lastVersion);
      lastVersion = parsed.lockVersion;
      reads++;
      await new Promise((r) => setImmediate(r));
    }

    const results = await finished;
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const registry = readRegistry(root);
    expect(registry.lockVersion).toBe(WRITERS * WRITES_EACH);
    expect(new Set(registry.teams.map((t) => t.domainId)).size).toBe(WRITERS * WRITES_EACH);
    expect(reads).toBeGreaterThan(0);
  });
});
