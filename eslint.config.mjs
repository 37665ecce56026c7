// The linter states the rules of the code once, for every file: the layers (arrows point down only, no
// cycles), the library that never prints or exits, the file adapter's internals kept behind the ports,
// the tests held to fed's entries.
import { readdirSync, readFileSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;

/**
 * The layers, lowest first: a layer imports only from the layers before it (infra and ports sit side by
 * side and import neither each other). The entries beside them (`src/*.ts`: src/index.ts, the library, and
 * the others package.json `exports` declares) may import every layer but the CLI.
 */
const TESTING_ENTRY = 'src/testing.ts';
// The entries but the testing one, which reaches every layer (even the CLI, which tests run in-process).
const TESTABLE_ENTRIES = 'src/!(testing).ts';
const LAYERS = [
  { dir: 'machines', forbidden: ['src'] },
  { dir: 'src/core', forbidden: ['src/infra', 'src/ports', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/infra', forbidden: ['src/ports', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/ports', forbidden: ['src/infra', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/adapters', forbidden: ['src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/engine', forbidden: ['src/apps', 'src/cli'] },
  { dir: 'src/apps', forbidden: ['src/cli'] },
  { dir: TESTABLE_ENTRIES, forbidden: ['src/cli'] },
];

/**
/**
 * The workspace's packages (packages/*: the built-in agent, fed-agent) are programs of their own: their code
 * imports fed only through the entries fed's package.json `exports` declares (`fed` is src/index.ts,
 * `fed/<entry>` src/<entry>.ts; tsconfig.json maps the names), never fed's layers or machines, and fed
 * imports nothing of theirs.
 */
const PACKAGES = 'packages/*/src';
const ENTRIES = Object.entries(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).exports)
  .map(([name, target]) => [name === '.' ? 'fed' : `fed/${name.slice(2)}`, target.default ?? target])
  .filter(([, target]) => target.startsWith('./dist/src/'))
  .map(([name, target]) => ({ name, file: `./${target.slice('./dist/src/'.length).replace(/\.js$/, '.ts')}` }));
// A program needs nothing of fed's testing entry: only tests import it.
const PROGRAM_ENTRIES = ENTRIES.filter(({ file }) => `src/${file.slice(2)}` !== TESTING_ENTRY);
const THROUGH_ENTRIES = `A package imports fed only through its entries: ${PROGRAM_ENTRIES.map(({ name }) => name).join(', ')}.`;

/**
 * Outside src/adapters, the adapters are reached through the ports (src/ports) and the adapter registry
 * (src/adapters/index.ts). So a backend's own files and paths (file-signal-v1's:
 * src/adapters/file/file-layout.ts) are named only in src/adapters.
 */
const ADAPTER_INTERNALS = ['src/adapters/file', 'src/adapters/jetstream'];
const OUTSIDE_ADAPTERS = [TESTABLE_ENTRIES, 'src/!(adapters)/**'];

/**
 * Tests (test/**, and each package's test/) import fed only through its entries — `fed` (src/index.ts),
 * `fed/testing` (src/testing.ts: what tests need beyond the library), the others package.json `exports`
 * declares — and their own files under test/, so a source file moves without editing tests. They name the
 * entries by package name, never by path: tsconfig.json maps `fed` and `fed/*` to source for tsc, vitest
 * (`resolve.tsconfigPaths`) and this linter, so a test runs the source as before; the import reads as a
 * user's program does and does not change when a test moves; and a script node runs on the build
 * (test/fixtures/*.mjs) names the same entry, which package.json `exports` resolves to dist/.
 *
 * A unit test may also import the modules it is named after, and no others: test/unit/**\/<words>.test.ts
 * may import src/**\/<name>.ts or machines/<name>.ts when <name> is a run of whole words of <words>
 * (atomic-write-outcomes.test.ts: src/infra/fs/atomic-write.ts), an index.ts never. A module tested through
 * its own seams needs no export for it; every other internal a test needs goes into src/testing.ts.
 */
const TESTS = ['test/**', 'packages/*/test/**'];
const THROUGH_TEST_ENTRIES =
  'A test imports fed through its entries (fed, fed/testing…, by package name) and, in test/unit, the modules its name names (CONTRIBUTING.md, "How tests import fed").';
const UNIT_TEST = /^(?:test|packages\/[^/]+\/test)\/unit\/(?:.*\/)?([^/]+)\.test\.ts$/;

/** Is `module` (a path from the root) one the unit test `testFile` is named after? */
export function isModuleUnderTest(testFile, module) {
  const test = UNIT_TEST.exec(testFile);
  const name = /^(?:src|machines)\/(?:.*\/)?([^/]+)\.ts$/.exec(module)?.[1];
  return test !== null && name !== undefined && name !== 'index' && `-${test[1]}-`.includes(`-${name}-`);
}

function filesUnder(dir, suffix) {
  return readdirSync(`${ROOT}/${dir}`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix) && !file.split('/').includes('node_modules'))
    .map((file) => `${dir}/${file}`);
}

/** Each unit test's modules under test, by the rule above: `{ file, allow }`. */
const SOURCE_MODULES = [...filesUnder('src', '.ts'), ...filesUnder('machines', '.ts')];
const UNIT_TESTS = [
  ...filesUnder('test/unit', '.test.ts'),
  ...readdirSync(`${ROOT}/packages`).flatMap((pkg) => {
    try {
      return filesUnder(`packages/${pkg}/test/unit`, '.test.ts');
    } catch {
      return [];
    }
  }),
];
const UNDER_TEST = UNIT_TESTS.map((file) => ({
  file,
  allow: SOURCE_MODULES.filter((module) => isModuleUnderTest(file, module)),
})).filter(({ allow }) => allow.length > 0);

/**
 * The imports that break the rules above. An entry `{ file, allow, why }` lets `file` import `allow` (a file
 * or a folder) past the zones — work left, to shrink, never to grow (lint-rules.test.ts fails when one is
 * no longer needed). Never add one to get past the linter: move the code, or export what a test needs
 * from src/testing.ts.
 */
export const EXCEPTIONS = [
  {
    file: 'test/machines/machines-on-first-use.test.ts',
    allow: ['src/engine/archetypes/catalog.ts'],
    why: 'It checks what loading the archetype catalog alone builds: an entry loads more (fed/testing, the launch machine).',
  },
];

/** The no-restricted-paths zones, with the imports `allow` lets through. */
export function zones(allow = []) {
  const zone = (target, from, message, always = []) => {
    const except = [
      ...new Set([
        ...always,
        ...allow
          .filter((path) => path === from || path.startsWith(`${from}/`))
          .map((path) => `./${path.slice(from.length + 1)}`),
      ]),
    ];
    return { target, from, message, ...(except.length ? { except } : {}) };
  };
  return [
    ...LAYERS.flatMap(({ dir, forbidden }) =>
      forbidden.map((from) => zone(dir, from, `${dir} is a lower layer than ${from}.`)),
    ),
    ...ADAPTER_INTERNALS.map((from) =>
      zone(
        OUTSIDE_ADAPTERS,
        from,
        'Reach an adapter through src/ports and the adapter registry, src/adapters/index.ts.',
      ),
    ),
    {
      target: `${PACKAGES}/**`,
      from: 'src',
      except: PROGRAM_ENTRIES.map(({ file }) => file),
      message: THROUGH_ENTRIES,
    },
    { target: `${PACKAGES}/**`, from: 'machines', message: THROUGH_ENTRIES },
    { target: ['src', 'machines'], from: 'packages', message: "fed imports nothing of a package's: it runs its bin." },
    { target: ['src', 'machines'], from: TESTING_ENTRY, message: 'Only tests import the testing entry.' },
    zone(
      TESTS,
      'src',
      THROUGH_TEST_ENTRIES,
      ENTRIES.map(({ file }) => file),
    ),
    zone(TESTS, 'machines', THROUGH_TEST_ENTRIES),
  ];
}

/** Standalone programs, started as processes: printing and exit codes are their job. */
export const PROGRAMS = [
  'packages/fed-agent/src/main.ts', // the fed-agent program
  'packages/fed-agent/src/bin.ts', // its executable: runs it through the code cache, and leaves one in the build's training run
  'packages/fed-agent/src/lifeline.ts', // fed-agent's end with its launcher, loaded first by its bin.ts
  'src/apps/launch/supervise/agent-watchdog.ts', // the watchdog process fed launch starts around an agent
];

const PRINTS_OR_EXITS = [
  ...['exit', 'exitCode'].map((name) => [
    `process.${name}`,
    `MemberExpression[object.name='process'][property.name='${name}']`,
  ]),
  ...['stdout', 'stderr'].map((name) => [
    `process.${name}.write`,
    `MemberExpression[object.object.name='process'][object.property.name='${name}'][property.name='write']`,
  ]),
].map(([name, selector]) => ({
  selector,
  message: `${name}: the library never prints or exits; return the outcome to src/cli.`,
}));

/**
 * The dashboard page (src/apps/ui/client) runs in a browser, bundled on its own: from fed it imports
 * types only (the wire contract, src/apps/ui/api-types.ts), so the bundle carries nothing of fed's
 * runtime. An import that leaves the client folder must be `import type`; one block per folder depth,
 * since the relative path that leaves it has one more `../` at each.
 */
const CLIENT = 'src/apps/ui/client';
const CLIENT_TYPE_ONLY = [0, 1, 2].map((depth) => ({
  files: [`${CLIENT}/${'*/'.repeat(depth)}*.ts`],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./){${depth + 1}}`,
            allowTypeImports: true,
            message: 'The dashboard page imports only types from fed (import type): its bundle runs in a browser.',
          },
        ],
      },
    ],
  },
}));

/**
 * Random ids come from src/infra/crypto/random.ts: node:crypto's generators load node:crypto (~3 ms of a
 * short command), and uuid's v4 without bytes handed in loads the global webcrypto. Secrets compared in
 * constant time may still use node:crypto's randomBytes, in processes that load it anyway.
 */
const RANDOM_ID_IMPORTS = [
  {
    name: 'node:crypto',
    importNames: ['randomUUID'],
    message: 'Use randomUuid from src/infra/crypto/random.ts (see why there).',
  },
  {
    name: 'uuid',
    importNames: ['v4'],
    message: 'Use randomUuid from src/infra/crypto/random.ts (see why there).',
  },
];
const RANDOM_IDS = {
  files: ['src/**'],
  ignores: ['src/infra/crypto/**', `${CLIENT}/**`],
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: RANDOM_ID_IMPORTS }] },
};

/**
 * src/apps/launch is laid out by the phases of machines/launch.machine.ts, and a launch followed through
 * the code stays in one phase's folder at a time: no phase calls another's code. launch-team.ts, which
 * moves the phases, and fix-attempts.ts, whose attempts take a step of three, are where they meet; what a
 * phase makes for the next is handed on as data, so a phase may import another's types (`import type`).
 * presets/ and the launch-wide modules beside launch-team.ts (the Launch, its watch, trace and records)
 * sit under the phases: they import none of them either. One block per folder depth, as for the client.
 * (The same rule as RANDOM_IDS: a file's last block replaces its options, so they carry those paths too.)
 */
const LAUNCH = 'src/apps/launch';
const LAUNCH_PHASES = ['prepare', 'supervise', 'judge', 'record'];
const LAUNCH_MEETS = [`${LAUNCH}/launch-team.ts`, `${LAUNCH}/fix-attempts.ts`];
const launchImports = (files, ignores, regex) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: RANDOM_ID_IMPORTS,
        patterns: [
          {
            regex,
            allowTypeImports: true,
            message:
              'A launch phase calls no other phase (launch-team.ts and fix-attempts.ts join them): hand on what a phase made as data (import type), or move the code to the phase that runs it.',
          },
        ],
      },
    ],
  },
});
const LAUNCH_PHASE_IMPORTS = [
  launchImports([`${LAUNCH}/*.ts`], LAUNCH_MEETS, `^\\./(${LAUNCH_PHASES.join('|')})/`),
  ...[...LAUNCH_PHASES, 'presets'].flatMap((folder) =>
    [0, 1].map((depth) =>
      launchImports(
        [`${LAUNCH}/${folder}/${'*/'.repeat(depth)}*.ts`],
        [],
        `^(\\.\\./){${depth + 1}}(${LAUNCH_PHASES.filter((phase) => phase !== folder).join('|')})/`,
      ),
    ),
  ),
];

/**
 * A test skips only through skipWithout (test/helpers/loud-skip.ts) or a helper built on it
 * (skipWithoutBubblewrap, skipWithoutNatsServer…): it names what is missing, and under CI it fails
 * instead, so CI never passes by skipping. A bare condition, `it.skip`, `describe.skip` or `ctx.skip()`
 * would skip silently.
 */
const LOUD_SKIPS_ONLY = [
  {
    selector:
      'CallExpression[callee.property.name=/^(skipIf|runIf)$/]:not(:has(CallExpression[callee.name=/^skipWithout/]))',
    message: 'Skip through skipWithout… (test/helpers/loud-skip.ts): it names what is missing, and fails under CI.',
  },
  {
    selector: 'CallExpression[callee.property.name=/^(skip|todo)$/]',
    message: 'A test never skips silently: skipWithout… (test/helpers/loud-skip.ts) names what is missing.',
  },
  {
    selector: 'MemberExpression[object.name=/^(it|test|describe)$/][property.name=/^(skip|todo)$/]',
    message: 'A test never skips silently: skipWithout… (test/helpers/loud-skip.ts) names what is missing.',
  },
];

/**
 * A test signals a process through killEach (test/helpers/fixture-process.ts), never process.kill: a pid
 * read from a file its writer had not yet filled is "", Number("") is 0, and kill(2) of 0 is the test
 * runner's own process group — the whole CI run, ended with exit 137. killEach refuses 0, -1 and 1.
 */
const SAFE_KILLS_ONLY = [
  {
    selector: "CallExpression[callee.object.name='process'][callee.property.name='kill']",
    message: 'Signal through killEach (test/helpers/fixture-process.ts): it never signals 0, -1 or 1.',
  },
];

const TEST_SYNTAX = [
  { files: ['test/**'], rules: { 'no-restricted-syntax': ['error', ...LOUD_SKIPS_ONLY] } },
  {
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts'],
    ignores: ['test/helpers/fixture-process.ts'],
    rules: { 'no-restricted-syntax': ['error', ...LOUD_SKIPS_ONLY, ...SAFE_KILLS_ONLY] },
  },
];

const UNSAFE_XSTATE = '__unsafe_getAllOwnEventDescriptors';
const UNSAFE_XSTATE_WHY =
  'an xstate internal that may change without notice; list the events from the machine definition.';

export default defineConfig(
  { ignores: ['**/dist/', 'coverage/', '.bench/', '.stryker-tmp/', '.mutation/', 'test/fixtures/federation-0.1.0/'] },
  js.configs.recommended,
  // Not type-aware: the type-checked rules would double the time of `npm run lint`, and tsc checks the types.
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      // Without these import-x reads no .ts module, and no-cycle finds nothing.
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts', '.cts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${ROOT}/tsconfig.json` })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-properties': ['warn', { property: UNSAFE_XSTATE, message: UNSAFE_XSTATE_WHY }],
      'no-restricted-imports': [
        'warn',
        { paths: [{ name: 'xstate', importNames: [UNSAFE_XSTATE], message: UNSAFE_XSTATE_WHY }] },
      ],
      // `_`-prefixed names say "unused on purpose" (a parameter an interface requires, a skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['src/**', 'machines/**', `${PACKAGES}/**`, ...TESTS],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: zones() }] },
  },
  // A file's exceptions and, for a unit test, its modules under test: one block each, which replaces the
  // rule's options for that file.
  ...[...new Set([...EXCEPTIONS, ...UNDER_TEST].map(({ file }) => file))].map((file) => ({
    files: [file],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: ROOT,
          zones: zones(
            [...EXCEPTIONS, ...UNDER_TEST].filter((entry) => entry.file === file).flatMap(({ allow }) => allow),
          ),
        },
      ],
    },
  })),
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: [`${CLIENT}/**`], languageOptions: { globals: globals.browser } },
  ...CLIENT_TYPE_ONLY,
  RANDOM_IDS,
  ...LAUNCH_PHASE_IMPORTS,
  ...TEST_SYNTAX,
  {
    files: ['src/**', `${PACKAGES}/**`],
    ignores: ['src/cli/**', ...PROGRAMS],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': ['error', ...PRINTS_OR_EXITS],
    },
  },
);
