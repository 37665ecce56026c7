/**
 * `npm run bench:compare -- OLD.json NEW.json`: two runs' rows side by side, matched by bench and name,
 * with each median's change. Rows only one run has are listed after.
 */
import { readFileSync } from 'node:fs';
import { benchResultSchema, type BenchResult } from './bench-result.js';
import { fmt } from './harness.js';

function load(file: string): BenchResult {
  try {
    return benchResultSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    process.stderr.write(`bench:compare: ${file} is not a bench result file: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

const [oldFile, newFile] = process.argv.slice(2);
if (!oldFile || !newFile) {
  process.stderr.write('usage: npm run bench:compare -- OLD.json NEW.json (files written by npm run bench)\n');
  process.exit(2);
}
const before = load(oldFile);
const after = load(newFile);
const key = (row: { bench: string; name: string }) => `${row.bench}\u0000${row.name}`;
const old = new Map(before.rows.map((row) => [key(row), row]));
process.stdout.write(`${oldFile} (${before.startedAt}) → ${newFile} (${after.startedAt})\n`);
for (const row of after.rows) {
  const was = old.get(key(row));
  old.delete(key(row));
  const verdict = row.goal ? `  goal ${row.goal}: ${row.met ? 'met' : 'NOT MET'}` : '';
  const change = was
    ? `${fmt(was.value)} → ${fmt(row.value)} (${((row.value / was.value - 1) * 100).toFixed(0)} %)`
    : `new: ${fmt(row.value)}`;
  // Old files have no Node per row: the run's own.
  const nodes = [was?.node ?? before.node, row.node ?? after.node];
  const node = was && nodes[0] !== nodes[1] ? `  (node ${nodes[0]} → ${nodes[1]})` : '';
  process.stdout.write(`  [${row.bench}] ${row.name}: ${change} ${row.unit}${verdict}${node}\n`);
}
for (const row of old.values()) process.stdout.write(`  [${row.bench}] ${row.name}: only in ${oldFile}\n`);
