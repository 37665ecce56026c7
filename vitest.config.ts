import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'machines/**/*.test.ts'],
    // Integration tests spawn real processes; two cores are shared, so keep workers bounded.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
