/**
 * `npm run test:node -- <major> [--core]`: fed's tests on another Node line than the machine's, as CI runs
 * them (.ci/run) — the pinned official binary of that line (test/helpers/node-lines.ts), installed on
 * first use, first on PATH for every step, so npm, the build, vitest and every process the tests start
 * run on it. The steps leave dist/ built by that Node.
 *
 * - without --core: `npm test`, the whole suite (typecheck, lint, build, every test);
 * - with --core: the build, `npm run demo`, and the e2e and integration suites — what a user's Node
 *   changes most: processes, the sandbox, the bundles and their code caches, the built-in agent.
 *
 * Exits with the first failing step's code, 2 for bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeLine, pinnedNodeLines } from '../test/helpers/node-lines.js';

const USAGE = 'usage: npm run test:node -- <major> [--core]';

function fail(message: string): never {
  process.stderr.write(`test:node: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({ options: { core: { type: 'boolean', default: false } }, allowPositionals: true });
} catch (error) {
  fail((error as Error).message);
}
const [asked, ...extra] = parsed.positionals;
const lines = [...pinnedNodeLines().keys()].join(', ');
if (asked === undefined || extra.length > 0 || !/^\d+$/.test(asked))
  fail(`name one Node line by its major version (pinned: ${lines})`);
let line;
try {
  line = nodeLine(Number(asked));
} catch (error) {
  fail((error as Error).message);
}

const steps: string[][] = parsed.values.core
  ? [
      ['npm', 'run', 'build'],
      ['npm', 'run', 'demo'],
      ['npx', 'vitest', 'run', 'test/e2e', 'test/integration'],
    ]
  : [['npm', 'test']];
const env = { ...process.env, PATH: [dirname(line.binary), process.env.PATH].filter(Boolean).join(delimiter) };
for (const [command, ...args] of steps) {
  process.stdout.write(`\n# Node ${line.version}: ${[command, ...args].join(' ')}\n`);
  const run = spawnSync(command!, args, { env, stdio: 'inherit' });
  if (run.status !== 0) {
    process.stderr.write(
      `test:node: on Node ${line.version}, ${[command, ...args].join(' ')} failed (${run.signal ?? `exit ${run.status}`})\n`,
    );
    process.exit(run.status ?? 1);
  }
}
process.stdout.write(
  `\n# Node ${line.version}: ${parsed.values.core ? 'build, demo, e2e and integration suites' : 'npm test'} passed\n`,
);
