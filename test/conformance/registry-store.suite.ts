import { describe, expect, it } from 'vitest';
import { RegistryConflictError } from 'fed';
import { updateRegistryIn } from 'fed/testing';
import { runWorker, yieldToEvents, type ConformanceFactory } from './conformance-federation.js';

/** The registry store's contract (src/ports/registry-store.ts), for any adapter. */
export function describeRegistryStore(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: registry store`, () => {
    it('commit is a compare-and-swap on lockVersion: a stale version is a conflict and changes nothing', async () => {
      const fed = await makeFederation([]);
      const store = fed.backend.registry;
      const before = await store.read();
      const written = await store.commit(
        before.lockVersion,
        { ...before, teams: [] },
        { now: () => new Date('2026-02-02T00:00:00.000Z') },
      );
      expect(written.lockVersion).toBe(before.lockVersion + 1);
      expect(written.lastUpdated).toBe('2026-02-02T00:00:00.000Z');
      const error = await store.commit(before.lockVersion, { ...before }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RegistryConflictError);
      expect(error).toMatchObject({
        code: 'REGISTRY_CONFLICT',
        expected: before.lockVersion,
        actual: before.lockVersion + 1,
      });
      expect(await store.read()).toEqual(written);
      expect(await store.create({ ...written, teams: [] })).toBe(false);
    });

    it('under concurrent writer processes every write lands, lockVersion counts them, versions never go backwards', async () => {
      const fed = await makeFederation([]);
      const start = await fed.backend.registry.read();
      const writers = ['w1', 'w2', 'w3'].map((writer) => runWorker(fed, 'registry-add', [writer, 10]));
      let finished = 0;
      for (const w of writers)
        void w.done.then(
          () => finished++,
          () => finished++,
        );
      let last = start.lockVersion;
      while (finished < writers.length) {
        const seen = (await fed.backend.registry.read()).lockVersion;
        expect(seen).toBeGreaterThanOrEqual(last);
        last = seen;
        await yieldToEvents();
      }
      await Promise.all(writers.map((w) => w.done));
      const final = await fed.backend.registry.read();
      expect(final.lockVersion).toBe(start.lockVersion + 30);
      const ids = final.teams.map((t) => t.domainId).filter((id) => /^w\d-/.test(id));
      expect(new Set(ids).size).toBe(30);
    });

    it('updateRegistryIn skips the write when the mutation changes nothing', async () => {
      const fed = await makeFederation([]);
      const before = await fed.backend.registry.read();
      const result = await updateRegistryIn(fed.backend.registry, () => undefined);
      expect(result).toMatchObject({ changed: false, attempts: 1 });
      expect((await fed.backend.registry.read()).lockVersion).toBe(before.lockVersion);
    });
  });
}
