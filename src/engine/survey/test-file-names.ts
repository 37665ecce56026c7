import { basename } from 'node:path';

const TEST_FOLDERS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'e2e']);

/** Test code by folder or by name: `*.test.ts`, `*.spec.js`, `test_x.py`, `x_test.py`, `x_test.go`, `XTest.java`. */
export function isTestFile(path: string): boolean {
  const segments = path.split('/');
  if (segments.slice(0, -1).some((s) => TEST_FOLDERS.has(s))) return true;
  const name = basename(path);
  return (
    /\.(test|spec)\.[^.]+$/.test(name) ||
    /^test_.+\.py$/.test(name) ||
    /_test\.(py|go)$/.test(name) ||
    /Tests?\.(java|kt|cs)$/.test(name)
  );
}
