/**
 * Registry compare-and-swap throughput with 4 writer processes, beside the raw lock+CAS ceiling
 * measured in the same run. Goal: ≥ 50 % of the ceiling with 0 lost updates.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initFederation } from '../../src/index.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { startFixture } from '../helpers/fixture-process.js';
import { report } from './harness.js';

const WRITERS = 4;
const DURATION_MS = 3_000;

async function run(
  mode: 'library' | 'raw',
): Promise<{ perSecond: number; writes: number; conflicts: number; root: string }> {
  const root = mkdtempSync(join(tmpdir(), `fed-bench-registry-${mode}-`));
  initFederation(root, {}, {});
  // Start together after every process has booted, so startup time is not measured.
  const startAt = Date.now() + 2_500;
  const writers = Array.from({ length: WRITERS }, (_, i) =>
    startFixture('registry-bench-writer.mjs', [root, mode, String(startAt), String(DURATION_MS), `w${i}`]),
  );
  const results = await Promise.all(writers.map((w) => w.done));
  let writes = 0;
  let conflicts = 0;
  for (const result of results) {
    if (result.code !== 0) throw new Error(`bench writer failed: ${result.stderr}`);
    const parsed = JSON.parse(result.stdout) as { writes: number; conflicts: number };
    writes += parsed.writes;
    conflicts += parsed.conflicts;
  }
  return { perSecond: writes / (DURATION_MS / 1000), writes, conflicts, root };
}

export default async function registryBench(): Promise<void> {
  const ceiling = await run('raw');
  rmSync(ceiling.root, { recursive: true, force: true });
  const library = await run('library');
  const registry = readRegistry(library.root);
  const lost = library.writes - registry.teams.length;
  rmSync(library.root, { recursive: true, force: true });

  const ratio = library.perSecond / ceiling.perSecond;
  report({
    name: `registry CAS writes, ${WRITERS} processes, durable`,
    value: library.perSecond,
    unit: 'writes/s',
    ceiling: { name: 'raw lock+CAS ceiling', value: ceiling.perSecond },
    goal: '≥ 50 % of ceiling',
    met: ratio >= 0.5,
  });
  report({
    name: 'lost updates (writes acknowledged − teams in registry; lockVersion − writes)',
    value: lost + Math.abs(registry.lockVersion - library.writes),
    unit: '',
    goal: '0',
    met: lost === 0 && registry.lockVersion === library.writes,
  });
  report({ name: 'conflicts retried', value: library.conflicts, unit: '' });
}
