import { describe, expect, test, vi } from 'vitest';

/** The id of every machine xstate built in this file's module graph, in order. */
const built = vi.hoisted(() => [] as string[]);

vi.mock('xstate', async (importOriginal) => {
  const xstate = await importOriginal<typeof import('xstate')>();
  return {
    ...xstate,
    setup: ((...args: Parameters<typeof xstate.setup>) => {
      const configured = xstate.setup(...args);
      return {
        ...configured,
        createMachine: (config: { id: string }) => {
          built.push(config.id);
          return configured.createMachine(config as never);
        },
      };
    }) as unknown as typeof xstate.setup,
  };
});

describe('machines are built on first use', () => {
  test("loading the archetypes builds no machine; a lifecycle's is built when read, once", async () => {
    const { archetypeFor, machineCatalog } = await import('../../src/engine/archetypes/catalog.js');
    expect(built).toEqual([]);

    // `fed team show` of a deliverable team builds the deliverable lifecycle, not the coding one.
    const deliverable = archetypeFor('deliverable')!.lifecycle;
    expect(deliverable.machine.id).toBe('deliverable');
    expect(deliverable.machine).toBe(deliverable.machine);
    expect(built).toEqual(['deliverable']);

    // Each entry's id, known before its machine is built, is its machine's.
    for (const entry of machineCatalog) expect(entry.machine.id).toBe(entry.id);
    expect([...built].sort()).toEqual(['coding', 'consultant', 'deliverable', 'team-status']);
  });
});
