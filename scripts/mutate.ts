/**
 * `npm run mutate [-- <module>...]`: mutation testing (StrykerJS) of the modules whose failure loses data or
 * lets an agent out (test/mutation/modules.ts; all of them by default), each against its own tests. Not
 * part of `npm test`: it takes minutes per module. Stryker 10 needs Node 22 or later, so it runs on the
 * pinned Node 26 (test/helpers/node-lines.ts), from test/mutation (its own manifest, installed there on
 * first use). Each module's report is `.mutation/<module>.json`; every run tests every mutant. Prints each
 * module's score and its survivors.
 * It tests against the current build (dist/): run `npm run build` after changing the source.
 *
 * Exits 0 when every module asked for is at or above its goal (85 % of mutants killed), 1 otherwise, 2 for
 * bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { packageRoot } from '../src/infra/package-info.js';
import { nodeLine } from '../test/helpers/node-lines.js';
import { ensurePinnedInstall } from '../test/helpers/pinned-install.js';
import { MUTATION_MODULES } from '../test/mutation/modules.js';
import { mutationScore, survivors } from '../test/mutation/mutation-report.js';

const GOAL = 85;
const root = packageRoot();
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in MUTATION_MODULES));
if (unknown.length > 0) {
  process.stderr.write(
    `mutate: no module ${unknown.join(', ')}; the modules are ${Object.keys(MUTATION_MODULES).join(', ')}\n`,
  );
  process.exit(2);
}
const modules = asked.length > 0 ? asked : Object.keys(MUTATION_MODULES);

const node = nodeLine(26);
const env = { ...process.env, PATH: [dirname(node.binary), process.env.PATH].filter(Boolean).join(delimiter) };
const strykerDir = join(root, 'test/mutation');
ensurePinnedInstall(strykerDir, [], env);
const stryker = join(strykerDir, 'node_modules/@stryker-mutator/core/bin/stryker.js');
// Some of a module's tests run a worker or a fixture on dist/: it must be there (it is not rebuilt here, so
// that two modules can be measured at once).
if (!existsSync(join(root, 'dist/src/index.js'))) {
  process.stderr.write('mutate: there is no build to test against: run npm run build first\n');
  process.exit(2);
}

const lines: string[] = [];
for (const name of modules) {
  const measured = MUTATION_MODULES[name]!;
  process.stdout.write(`\n# mutate ${name}: ${measured.title}\n`);
  const run = spawnSync(
    node.binary,
    [stryker, 'run', 'test/mutation/stryker.config.mjs', '--mutate', measured.mutate.join(',')],
    {
      cwd: root,
      env: { ...env, FED_MUTATE_MODULE: name, FED_MUTATE_TESTS: JSON.stringify(measured.tests) },
      stdio: 'inherit',
    },
  );
  if (run.status !== 0) {
    process.stderr.write(`mutate: Stryker failed on ${name} (exit ${run.status})\n`);
    process.exit(run.status ?? 1);
  }
  const report = JSON.parse(readFileSync(join(root, '.mutation', `${name}.json`), 'utf8'));
  const score = mutationScore(report);
  lines.push(
    `${name}: ${score.percent.toFixed(1)} % (${score.killed} of ${score.valid} killed; goal ${GOAL} %: ${score.percent >= GOAL ? 'met' : 'NOT MET'})`,
  );
  for (const survivor of survivors(report)) lines.push(`  survived: ${survivor}`);
}
process.stdout.write(`\n${lines.join('\n')}\n`);
process.exit(lines.some((line) => line.includes('NOT MET')) ? 1 : 0);
