import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as fed from 'fed';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// 153 since the change feed port (FederationChanges, FederationChange, ChangeWatch): an adapter implements it.
// 158 since the host directory and team file ports (HostDirectory, HeardHost, TeamFileStore): a backend
// shared across machines implements them. 159 since the transcript store port (TranscriptStore), the same.
// 160 since decideReview: a library that could review (reviewTeam) and merge (mergeTeam) could not approve.
const MAX_PUBLIC_NAMES = 160;

function source(path: string): string {
  return readFileSync(`${ROOT}${path}`, 'utf8');
}

/** The names of `export { … }` and `export type { … }` lists: each entry, its `type` and `as` taken off. */
function namedExports(text: string): string[] {
  return [...text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((list) =>
    list[1]!
      .split(',')
      .map((entry) => entry.trim().replace(/^type\s+/, ''))
      .filter((entry) => entry !== '')
      .map((entry) => entry.split(/\s+as\s+/).pop()!),
  );
}

/** The types the ports declare: the index re-exports them with `export type * from './ports/index.js'`. */
function portTypes(): string[] {
  const files = [...source('src/ports/index.ts').matchAll(/^export type \* from '\.\/(.+)\.js';/gm)];
  return files.flatMap((file) =>
    [...source(`src/ports/${file[1]}.ts`).matchAll(/^export (?:interface|type) (\w+)/gm)].map((name) => name[1]!),
  );
}

// The library entry is curated: a name made public is a promise kept across releases.
describe('the library entry (src/index.ts)', () => {
  const text = source('src/index.ts');

  it('re-exports by name, but for the ports’ types', () => {
    const stars = [...text.matchAll(/^export (?:type )?\*.*$/gm)].map((line) => line[0]);
    expect(stars).toEqual(["export type * from './ports/index.js';"]);
  });

  it(`exports at most ${MAX_PUBLIC_NAMES} names, types included`, () => {
    const names = [...namedExports(text), ...portTypes()];
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeLessThanOrEqual(MAX_PUBLIC_NAMES);
    // Every runtime export is one of the names counted.
    expect(Object.keys(fed).filter((name) => !names.includes(name))).toEqual([]);
  });
});
