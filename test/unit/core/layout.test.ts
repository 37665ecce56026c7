import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FED_DIR, pathEntries } from '../../../src/core/layout.js';
import { workspacePaths } from 'fed/testing';

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
    for (const workspace of [
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
    ]) {
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
