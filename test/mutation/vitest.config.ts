import { defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant (npm run mutate): the module's own tests, which
 * scripts/mutate.ts names in FED_MUTATE_TESTS (a JSON list of globs) — the tests that run its code in
 * their own process. A test that runs the built CLI reaches no mutant of the source.
 */
const include = JSON.parse(process.env.FED_MUTATE_TESTS ?? '[]') as string[];
if (include.length === 0) throw new Error('FED_MUTATE_TESTS names no test: run npm run mutate');

export default defineConfig({
  // fed's entries by name (`fed/agent`…) from source, as the suite resolves them: the mutant, not the build.
  resolve: { tsconfigPaths: true },
  test: {
    include,
    maxWorkers: 1,
    env: { FED_TELEMETRY_ENABLED: 'false' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
