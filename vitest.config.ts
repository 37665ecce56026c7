import { defineConfig } from 'vitest/config';

export default defineConfig({
  // fed's entries by name (`fed/agent`…), from source as tsconfig.json maps them: never the last build's.
  resolve: { tsconfigPaths: true },
  test: {
    // fed's tests, and each workspace package's beside it (packages/fed-agent).
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Integration tests spawn real processes; two cores are shared, so keep workers bounded.
    maxWorkers: 2,
    // Agents launched in-process inherit this; telemetry is tested where a test turns it on explicitly.
    env: { FED_TELEMETRY_ENABLED: 'false' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition another process or watch makes true: a loaded two-core machine
    // may take longer than the default second to get there.
    expect: { poll: { timeout: 15_000 } },
  },
});
