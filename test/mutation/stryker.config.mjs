// @ts-check
/**
 * StrykerJS over one module whose failure loses data or lets an agent out (npm run mutate: the modules are
 * in ./modules.ts; scripts/mutate.ts passes the module's source as --mutate, its name in FED_MUTATE_MODULE
 * and its tests in FED_MUTATE_TESTS). Run from the package root on the pinned Node 26: Stryker 10 needs
 * Node 22 or later.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const mutated = process.env.FED_MUTATE_MODULE ?? 'all';

export default {
  testRunner: 'vitest',
  // Only the module's own tests (FED_MUTATE_TESTS), not every test that imports its files somewhere.
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  checkers: [],
  // Stryker would otherwise put `// @ts-nocheck` atop every script it copies, the built bundles too, whose
  // lengths fed checks; vitest type-checks nothing anyway.
  disableTypeChecks: false,
  // Two by default; FED_MUTATE_CONCURRENCY=1 on a machine shared with other work, where two would make
  // slow mutants count as killed by timeout.
  concurrency: Number(process.env.FED_MUTATE_CONCURRENCY ?? 2),
  // A mutant that hangs (a loop that never ends, a promise never settled) counts as killed once its tests
  // take this much longer than they did unmutated.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  thresholds: { high: 90, low: 85, break: null },
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `.mutation/${mutated}.json` },
  // One folder per module, so that two modules can be measured at once.
  tempDirName: `.stryker-tmp/${mutated}`,
  // Left out of each sandbox's copy of the project: the other modules' sandboxes and reports, and the
  // pinned installs of other manifests (the real agent CLIs alone are 1.4 GB).
  ignorePatterns: ['/.stryker-tmp', '/.mutation', '/.bench', '/test-artifacts', '/test/*/node_modules'],
  // Every mutant every run: Stryker's incremental mode kept the old verdict of mutants in module-level
  // constants (which no test's coverage names) after new tests had come to kill them.
  cleanTempDir: 'always',
};
