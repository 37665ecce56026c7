import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * fed uses xstate through its public API only: a lifecycle moves by `transition()`, and the events a state
 * accepts come from `getNextTransitions()`. xstate's `__unsafe_` helpers may change in any minor release,
 * so this test reads the source (machines and src) and fails on any use of them. (A lint rule,
 * `no-restricted-imports`/`no-restricted-properties` on `__unsafe_*`, would say the same in the editor.)
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('xstate is used through its public API', () => {
  it('no module of machines/ or src/ calls an __unsafe_ helper of xstate', () => {
    const offenders = ['machines', 'src']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .filter((file) => readFileSync(file, 'utf8').includes('__unsafe_'))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
