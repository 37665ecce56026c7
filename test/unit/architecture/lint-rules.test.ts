import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The architecture rules eslint.config.mjs holds (issues #12 and #18): the layers, a library that never
 * prints, exits or imports the CLI, the adapters' internals reached only through the ports. `npm run lint`
 * applies them; this test makes sure they can fail, and that their exceptions are still needed.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface LintConfig {
  EXCEPTIONS: readonly { file: string; allow: readonly string[]; why: string }[];
  PROGRAMS: readonly string[];
  zones: (allow?: readonly string[]) => unknown[];
}
const config = (await import(pathToFileURL(join(ROOT, 'eslint.config.mjs')).href)) as LintConfig;

// Only the rules under test: no-cycle reads the whole import graph, which these checks do not need.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

const RULES_UNDER_TEST = new Set(['import-x/no-restricted-paths', 'no-console', 'no-restricted-syntax']);

/** The rule and line of each problem those rules find in `code`, as if it were `file` (its imports must exist). */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return result!.messages
    .filter((message) => RULES_UNDER_TEST.has(message.ruleId ?? ''))
    .map((message) => `${message.ruleId}: ${code.split('\n')[message.line - 1]!.trim()}`);
}

describe('eslint.config.mjs', () => {
  it('keeps each layer from importing the layers above it', async () => {
    const imports =
      "import { a } from '../engine/messaging/send-signal.js';\nimport { b } from '../infra/repeat.js';\nimport { c } from '../../machines/index.js';\n";
    expect(await problems('src/core/x.ts', imports)).toEqual([
      "import-x/no-restricted-paths: import { a } from '../engine/messaging/send-signal.js';",
      "import-x/no-restricted-paths: import { b } from '../infra/repeat.js';",
    ]);
    expect(
      await problems(
        'src/engine/x.ts',
        "import { a } from '../core/errors.js';\nimport { b } from '../apps/launch/launch-team.js';\n",
      ),
    ).toEqual(["import-x/no-restricted-paths: import { b } from '../apps/launch/launch-team.js';"]);
    expect(await problems('machines/x.ts', "import { a } from '../src/core/errors.js';\n")).toEqual([
      "import-x/no-restricted-paths: import { a } from '../src/core/errors.js';",
    ]);
  });

  it('holds a package to the entries fed declares, and fed to nothing of a package', async () => {
    const imports = [
      "import { a } from 'fed/agent';",
      "import { b } from 'fed';",
      "import { c } from '../../../src/core/errors.js';",
      "import { d } from 'fed/engine/context';",
      "import { e } from '../../../machines/index.js';",
    ].join('\n');
    expect(await problems('packages/fed-agent/src/x.ts', imports)).toEqual([
      "import-x/no-restricted-paths: import { c } from '../../../src/core/errors.js';",
      "import-x/no-restricted-paths: import { d } from 'fed/engine/context';",
      "import-x/no-restricted-paths: import { e } from '../../../machines/index.js';",
    ]);
    const agent = "import { f } from '../../../packages/fed-agent/src/main.js';\n";
    expect(await problems('src/apps/plan/x.ts', agent)).toEqual([`import-x/no-restricted-paths: ${agent.trim()}`]);
  });

  it('holds a test to the entries, a unit test also to the modules it is named after, and the testing entry to tests', async () => {
    const imports = [
      "import { a } from 'fed';",
      "import { b } from 'fed/testing';",
      "import { c } from '../../../src/infra/fs/lock.js';",
      "import { d } from 'fed/engine/context';",
      "import { e } from '../../../machines/index.js';",
      "import { f } from '../../helpers/temp-dir.js';",
      "const g = await import('../../../src/core/errors.js');",
    ].join('\n');
    const refused = [
      "import-x/no-restricted-paths: import { d } from 'fed/engine/context';",
      "import-x/no-restricted-paths: import { e } from '../../../machines/index.js';",
      "import-x/no-restricted-paths: const g = await import('../../../src/core/errors.js');",
    ];
    // lock.test.ts is named after src/infra/fs/lock.ts; atomic-write-outcomes.test.ts after atomic-write.ts (a
    // run of whole words of its name). The config reads which tests exist when it loads.
    expect(await problems('test/unit/fs/lock.test.ts', imports)).toEqual(refused);
    const outcomes = imports.replace('fs/lock.js', 'fs/atomic-write.js');
    expect(await problems('test/unit/fs/atomic-write-outcomes.test.ts', outcomes)).toEqual(refused);
    const other = ["import-x/no-restricted-paths: import { c } from '../../../src/infra/fs/lock.js';", ...refused];
    expect(await problems('test/unit/fs/locksmith.test.ts', imports)).toEqual(other);
    expect(await problems('test/integration/x.test.ts', imports.replaceAll('../../../', '../../'))).toEqual(
      other.map((line) => line.replaceAll('../../../', '../../')),
    );
    const testing = "import { b } from 'fed/testing';\n";
    expect(await problems('packages/fed-agent/src/x.ts', testing)).toEqual([
      `import-x/no-restricted-paths: ${testing.trim()}`,
    ]);
    expect(await problems('src/apps/x.ts', "import { b } from '../testing.js';\n")).toEqual([
      "import-x/no-restricted-paths: import { b } from '../testing.js';",
    ]);
    // The testing entry reaches every layer, the CLI and the adapters' internals included.
    const deep =
      "import { runCli } from './cli/program.js';\nimport { readRegistry } from './adapters/file/registry-file.js';\n";
    expect(await problems('src/testing.ts', deep)).toEqual([]);
  });

  it('refuses a library module that imports the CLI, prints or exits, and lets src/cli and the programs do so', async () => {
    const leaks = [
      "import { runCli } from '../../cli/program.js';",
      'console.log(runCli);',
      "process.stderr.write('x');",
      "process.stdout.write('x');",
      'process.exit(2);',
      'process.exitCode = 1;',
    ].join('\n');
    expect(await problems('src/apps/monitor/x.ts', leaks)).toEqual([
      "import-x/no-restricted-paths: import { runCli } from '../../cli/program.js';",
      'no-console: console.log(runCli);',
      "no-restricted-syntax: process.stderr.write('x');",
      "no-restricted-syntax: process.stdout.write('x');",
      'no-restricted-syntax: process.exit(2);',
      'no-restricted-syntax: process.exitCode = 1;',
    ]);
    expect(await problems('src/cli/commands/x.ts', leaks.replace('../../cli/', '../'))).toEqual([]);
    for (const program of config.PROGRAMS) {
      expect(
        await problems(program, leaks.replace("import { runCli } from '../../cli/program.js';", 'const runCli = 1;')),
        program,
      ).toEqual([]);
    }
  });

  it('keeps each phase of a launch out of the others: what a phase made passes as types, never as calls', async () => {
    const refused = async (file: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
      return result!.messages
        .filter((message) => message.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((message) => code.split('\n')[message.line - 1]!.trim());
    };
    const judge = [
      "import { readRefusedCompletion } from '../supervise/refused-completion.js';",
      "import type { EndedRun } from '../supervise/supervise-agent.js';",
      "import { readRecentRuns } from '../run-records.js';",
      "import { choosePreset } from '../presets/catalog.js';",
    ].join('\n');
    expect(await refused('src/apps/launch/judge/x.ts', judge)).toEqual([
      "import { readRefusedCompletion } from '../supervise/refused-completion.js';",
    ]);
    expect(
      await refused(
        'src/apps/launch/prepare/sandbox/x.ts',
        "import { RunNetwork } from '../../supervise/network/run-network.js';\nimport { hostPolicy } from './host-policy.js';\n",
      ),
    ).toEqual(["import { RunNetwork } from '../../supervise/network/run-network.js';"]);
    expect(
      await refused('src/apps/launch/presets/x.ts', "import { runOutcome } from '../judge/run-outcome.js';\n"),
    ).toEqual(["import { runOutcome } from '../judge/run-outcome.js';"]);
    // The launch-wide modules sit under the phases; launch-team.ts and fix-attempts.ts join them.
    const prepare = "import { prepareRun } from './prepare/prepare-run.js';\n";
    expect(await refused('src/apps/launch/run-records.ts', prepare)).toEqual([prepare.trim()]);
    expect(await refused('src/apps/launch/launch-team.ts', prepare)).toEqual([]);
    expect(await refused('src/apps/launch/fix-attempts.ts', prepare)).toEqual([]);
    // Random ids are still held there: the phases' block carries that rule's paths.
    expect(await refused('src/apps/launch/judge/x.ts', "import { randomUUID } from 'node:crypto';\n")).toHaveLength(1);
  });

  it('every standalone program is still there', () => {
    expect(config.PROGRAMS.filter((program) => !existsSync(join(ROOT, program)))).toEqual([]);
  });

  it("refuses an import of an adapter's internals from outside src/adapters", async () => {
    const code =
      "import { readRegistry } from '../../adapters/file/registry-file.js';\nimport { names } from '../../adapters/jetstream/names.js';\n";
    expect(await problems('src/apps/monitor/x.ts', code)).toEqual([
      "import-x/no-restricted-paths: import { readRegistry } from '../../adapters/file/registry-file.js';",
      "import-x/no-restricted-paths: import { names } from '../../adapters/jetstream/names.js';",
    ]);
    expect(await problems('src/adapters/jetstream/x.ts', code.replaceAll('../../adapters/', '../'))).toEqual([]);
    // The library entry too: it exports no adapter internals.
    expect(await problems('src/index.ts', code.replaceAll('../../', './'))).toEqual([
      "import-x/no-restricted-paths: import { readRegistry } from './adapters/file/registry-file.js';",
      "import-x/no-restricted-paths: import { names } from './adapters/jetstream/names.js';",
    ]);
  });

  it('lets a test skip only through skipWithout…, which names what is missing and fails under CI', async () => {
    const skips = [
      "it.skipIf(!existsSync('/dev/full'))('x', () => {});",
      "describe.skipIf(bwrapMissing !== undefined)('x', () => {});",
      "it.runIf(hasMount)('x', () => {});",
      "it.skip('x', () => {});",
      "describe.skip('x', () => {});",
      "it.todo('x');",
      "it('x', (ctx) => { ctx.skip(); });",
      'const later = it.skip;',
      "it.skipIf(skipWithout('x', missing))('x', () => {});",
      "it.skipIf(sandboxed && skipWithoutBubblewrap(SUITE))('x', () => {});",
      'describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {});',
    ].join('\n');
    expect(await problems('test/unit/x.test.ts', skips)).toEqual([
      "no-restricted-syntax: it.skipIf(!existsSync('/dev/full'))('x', () => {});",
      "no-restricted-syntax: describe.skipIf(bwrapMissing !== undefined)('x', () => {});",
      "no-restricted-syntax: it.runIf(hasMount)('x', () => {});",
      // it.skip(…) is both a call of .skip and a use of it.skip.
      "no-restricted-syntax: it.skip('x', () => {});",
      "no-restricted-syntax: it.skip('x', () => {});",
      "no-restricted-syntax: describe.skip('x', () => {});",
      "no-restricted-syntax: describe.skip('x', () => {});",
      "no-restricted-syntax: it.todo('x');",
      "no-restricted-syntax: it.todo('x');",
      "no-restricted-syntax: it('x', (ctx) => { ctx.skip(); });",
      'no-restricted-syntax: const later = it.skip;',
    ]);
  });

  it('lets a test signal a process only through killEach, which never signals 0, -1 or 1', async () => {
    const kills = [
      "process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');",
      'process.kill(-child.pid!);',
      'killEach([-child.pid!]);',
      "vi.spyOn(process, 'kill');",
    ].join('\n');
    expect(await problems('test/integration/x.test.ts', kills)).toEqual([
      "no-restricted-syntax: process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');",
      'no-restricted-syntax: process.kill(-child.pid!);',
    ]);
    expect(await problems('packages/fed-agent/test/x.test.ts', kills)).toHaveLength(2);
    expect(await problems('test/helpers/fixture-process.ts', kills)).toEqual([]);
  });

  it('every exception is still needed: each file imports what it is allowed, against the zones of all others', async () => {
    const files = [...new Set(config.EXCEPTIONS.map(({ file }) => file))];
    // None left: there is nothing to check (and ESLint, given no files, would lint the whole tree).
    if (files.length === 0) return;
    const strict = new ESLint({
      cwd: ROOT,
      overrideConfig: [
        { rules: { 'import-x/no-cycle': 'off' } },
        { files, rules: { 'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: config.zones() }] } },
      ],
    });
    const unused: string[] = [];
    for (const result of await strict.lintFiles(files)) {
      const file = relative(ROOT, result.filePath);
      const refused = result.messages
        .filter((message) => message.ruleId === 'import-x/no-restricted-paths')
        .map((message) => relative(ROOT, resolve(dirname(result.filePath), /"([^"]+)"/.exec(message.message)![1]!)));
      for (const { allow } of config.EXCEPTIONS.filter((exception) => exception.file === file)) {
        for (const path of allow) {
          const target = path.replace(/\.ts$/, '.js');
          if (!refused.some((imported) => imported === target || imported.startsWith(`${path}/`)))
            unused.push(`${file} → ${path}`);
        }
      }
    }
    expect(unused).toEqual([]);
  });
});
