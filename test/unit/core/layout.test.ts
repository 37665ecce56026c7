import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FED_DIR, joinPath, pathEntries } from '../../../src/core/layout.js';
import { workspacePaths } from 'fed/testing';

/** Paths normalised or not, which a joining shortcut must give as path.join does. */
const PATHS = [
  '/srv/federation',
  '/',
  '',
  '.',
  '..',
  'relative/team',
  './relative',
  '../up/team',
  '/srv//federation',
  '/srv/federation/',
  '/srv/./federation',
  '/srv/federation/..',
  '//srv',
  '/srv/.',
  '/srv/./',
  'a/../b',
  '..x',
  '.x/y',
  '/srv/a..b/.hidden/...',
  '/srv/team-0001.d/x.',
];

describe('workspacePaths', () => {
  // What every path is under `.fed`, from a plain workspace.
  const plain = workspacePaths('/srv/federation/.fed/teams/alpha');
  const endings = Object.fromEntries(
    pathEntries(plain)
      .filter(([key]) => key !== 'workspace' && key !== 'fedDir')
      .map(([key, path]) => [key, path.slice(plain.fedDir.length)]),
  );

  it('puts each path under the workspace’s .fed', () => {
    expect(plain.fedDir).toBe('/srv/federation/.fed/teams/alpha/.fed');
    expect(plain.inbox).toBe('/srv/federation/.fed/teams/alpha/.fed/signals/inbox');
    expect(plain.envelope).toBe(join(plain.fedDir, 'state', 'lifecycle.json'));
    expect(Object.keys(endings).length).toBeGreaterThan(20);
    expect(Object.isFrozen(plain)).toBe(true);
  });

  it('gives what path.join gives for any workspace, normalised or not', () => {
    for (const workspace of PATHS) {
      const paths = workspacePaths(workspace);
      expect(paths.workspace).toBe(workspace);
      expect(paths.fedDir).toBe(join(workspace, FED_DIR));
      for (const [key, ending] of Object.entries(endings))
        expect(paths[key as keyof typeof paths], `${key} of ${JSON.stringify(workspace)}`).toBe(
          join(workspace, FED_DIR) + ending,
        );
    }
  });
});

describe('joinPath', () => {
  it('gives what path.join gives, for normalised paths and any others', () => {
    const relatives = [
      'deliverable.md',
      'docs/out.md',
      '../up.md',
      './here.md',
      '',
      '.',
      '/abs.md',
      'a//b.md',
      'dir/',
      '..x',
    ];
    for (const dir of PATHS)
      for (const relative of relatives)
        expect(joinPath(dir, relative), `${JSON.stringify(dir)} + ${JSON.stringify(relative)}`).toBe(
          join(dir, relative),
        );
  });
});
