/**
 * `npm run bench`: runs every `*.bench.ts` in this folder (or those named on the command line) and
 * prints each figure beside the raw ceiling measured in the same run. The rows are also written as JSON
 * (`--json FILE`, by default `.bench/bench-<time>.json`) so two runs can be compared with
 * `npm run bench:compare -- OLD.json NEW.json`.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { reportedRows, startBench } from './harness.js';
import { benchResultSchema, type BenchResult } from './bench-result.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile =
  jsonAt >= 0
    ? resolve(args[jsonAt + 1] ?? '')
    : join(here, '..', '..', '.bench', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
const wanted = jsonAt >= 0 ? args.filter((_, i) => i !== jsonAt && i !== jsonAt + 1) : args;
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

const startedAt = new Date().toISOString();
const loadBefore = loadavg()[0] ?? 0;
for (const file of files) {
  const name = file.replace('.bench.ts', '');
  process.stdout.write(`\n## ${name}\n`);
  startBench(name);
  const mod = (await import(pathToFileURL(`${here}/${file}`).href)) as { default: () => Promise<void> };
  await mod.default();
}
const rows = reportedRows();
const result: BenchResult = benchResultSchema.parse({
  startedAt,
  finishedAt: new Date().toISOString(),
  node: process.version,
  cpus: availableParallelism(),
  load: { before: loadBefore, after: loadavg()[0] ?? 0 },
  benches: files.map((f) => f.replace('.bench.ts', '')),
  rows,
});
mkdirSync(dirname(jsonFile), { recursive: true });
writeFileSync(jsonFile, `${JSON.stringify(result, null, 2)}\n`);
const missed = rows.filter((r) => r.met === false);
process.stdout.write(`\n${rows.length} figures, ${missed.length} goal(s) not met; results in ${jsonFile}\n`);
for (const row of missed) process.stdout.write(`  not met: [${row.bench}] ${row.name} (goal ${row.goal})\n`);
// A bench that leaves a handle open (a client's reconnect timer, a socket) must not keep the run from
// ending once its rows are written: name what is left, so the leak is seen, and end.
const left = (process as unknown as { getActiveResourcesInfo(): string[] })
  .getActiveResourcesInfo()
  .filter((kind) => kind !== 'TTYWrap');
if (left.length > 0) process.stdout.write(`(still open after the benches: ${left.join(', ')}; ending anyway)\n`);
process.exit(0);
