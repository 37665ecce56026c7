/**
 * `npm run test:node -- <major> [--core]`: fed's tests on another Node line than the machine's, as CI runs
 * them (.ci/run) — the pinned official binary of that line (test/helpers/node-lines.ts), installed on
 * first use, first on PATH for every step, so npm, the build, vitest and every process the tests start
 * run on it. The steps leave dist/ built by that Node.
 *
 * - without --core: `npm test`, the whole suite (typecheck, lint, build, every test);
 * - with --core: the build and the tests where a Node line changes what fed does
 *   (test/helpers/node-sensitive-tests.ts: V8 and its flags, the bundles and their code caches, processes,
 *   the sandbox, filesystem errors), the demo among them.
 *
 * Exits with the first failing step's code, 2 for bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeLine, pinnedNodeLines } from '../test/helpers/node-lines.js';
import { NODE_SENSITIVE_TESTS } from '../test/helpers/node-sensitive-tests.js';

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
      ['npx', 'vitest', 'run', ...Object.keys(NODE_SENSITIVE_TESTS)],
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
  `\n# Node ${line.version}: ${parsed.values.core ? 'the build and the Node-sensitive tests' : 'npm test'} passed\n`,
);
