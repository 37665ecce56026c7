import { describe, expect, it, vi } from 'vitest';

/**
 * What `fed monitor --json` does per team besides its fs calls on the team's paths (those are
 * monitor-fs-calls.test.ts's), counted at two sizes so that any work added per team shows: its lifecycle
 * file is read through one descriptor with one fstat (which gives the file's identity too), one read and
 * one close; it is parsed once, and a well-formed one is taken without zod, its envelope and its context
 * (zod cost ~50 µs a team, a quarter of the garbage of a thousand-team cycle). Issue #31, the `monitor` bench.
 */
// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { initFederation, onboardTeam, runActors, sendSignal } = await import('fed');
const { openFederation } = await import('fed');
const { envelopeSchema } = await import('fed');
const { archetypes } = await import('fed/testing');
const { counted, onPaths } = await import('../helpers/fs-calls.js');
const { fedInProcess } = await import('../helpers/fed-in-process.js');
const { tempDir } = await import('../helpers/temp-dir.js');

interface Work {
  /** Calls on open descriptors, by name (reads of what was opened). */
  descriptors: Record<string, number>;
  jsonParses: number;
  envelopeZodParses: number;
  contextZodParses: number;
}

/** A monitoring cycle over `teams` teams, each with its mission applied (a lifecycle) and a question. */
async function monitorWork(teams: number): Promise<Work> {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root);
  for (let t = 0; t < teams; t++) {
    const entry = await onboardTeam(fed, { domain: `team-${t}` }, { durable: false });
    await sendSignal(fed, { to: entry.domainId, type: 'directive', subject: 'Mission' }, { durable: false });
    await sendSignal(fed, { to: entry.domainId, type: 'question', subject: 'Scope?' }, { durable: false });
  }
  await runActors(fed, { once: true, durable: false });
  // Once before, so that what loads on first use (config formats, schemas) is not counted.
  expect((await fedInProcess(['monitor', '--json'], root)).code).toBe(0);
  const parse = vi.spyOn(JSON, 'parse');
  const zod = [vi.spyOn(envelopeSchema, 'safeParse'), vi.spyOn(envelopeSchema, 'parse')];
  const contexts = archetypes.map((archetype) => vi.spyOn(archetype.contextSchema, 'safeParse'));
  try {
    const { value, calls } = await counted(() => fedInProcess(['monitor', '--json'], root));
    expect({ code: value.code, stderr: value.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(value.stdout) as { teams: { lifecycle: { state: string } | null }[] };
    expect(report.teams.map((team) => team.lifecycle?.state)).toEqual(Array(teams).fill('preparing'));
    const descriptors: Record<string, number> = {};
    const paths = onPaths(calls);
    for (const call of calls) if (!paths.includes(call)) descriptors[call.op] = (descriptors[call.op] ?? 0) + 1;
    return {
      descriptors,
      // The test's own parse of the output is not the command's.
      jsonParses: parse.mock.calls.length - 1,
      envelopeZodParses: zod.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
      contextZodParses: contexts.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
    };
  } finally {
    parse.mockRestore();
    for (const spy of [...zod, ...contexts]) spy.mockRestore();
  }
}

describe('fed monitor --json over many teams', () => {
  it('reads each lifecycle through one fstat, parses it once and restores it without zod', async () => {
    const [small, large] = [await monitorWork(2), await monitorWork(6)];
    const added = 6 - 2;
    expect(small.envelopeZodParses).toBe(0);
    expect(large.envelopeZodParses).toBe(0);
    expect(small.contextZodParses).toBe(0);
    expect(large.contextZodParses).toBe(0);
    expect(Object.keys(large.descriptors).sort()).toEqual(Object.keys(small.descriptors).sort());
    for (const op of Object.keys(large.descriptors))
      expect(large.descriptors[op]! - small.descriptors[op]!, op).toBe(
        ['fstatSync', 'readSync', 'closeSync'].includes(op) ? added : 0,
      );
    // Per team: its lifecycle, parsed once.
    expect(large.jsonParses - small.jsonParses).toBe(added);
  });
});
