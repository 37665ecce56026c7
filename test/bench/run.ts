/**
 * `npm run bench`: runs every `*.bench.ts` in this folder (or those named on the command line) and
 * prints each figure beside the raw ceiling measured in the same run.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { reportedRows } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

for (const file of files) {
  process.stdout.write(`\n## ${file.replace('.bench.ts', '')}\n`);
  const mod = (await import(pathToFileURL(`${here}/${file}`).href)) as { default: () => Promise<void> };
  await mod.default();
}
const missed = reportedRows().filter((r) => r.met === false);
process.stdout.write(`\n${reportedRows().length} figures, ${missed.length} goal(s) not met\n`);
