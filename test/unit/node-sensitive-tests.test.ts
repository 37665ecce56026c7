import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from 'fed/testing';
import { NODE_SENSITIVE_TESTS } from '../helpers/node-sensitive-tests.js';

// vitest runs what matches and says nothing of a filter that matches no file: a renamed test would leave
// the other Node lines' CI run quietly without it.
describe('the Node-sensitive tests (npm run test:node -- <major> --core)', () => {
  it.each(Object.keys(NODE_SENSITIVE_TESTS))('%s is a test file', (file) => {
    expect(file).toMatch(/\.test\.ts$/);
    expect(existsSync(join(packageRoot(), file))).toBe(true);
  });
});
