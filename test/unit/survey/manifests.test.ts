import { describe, expect, it } from 'vitest';
import { readManifest } from '../../../src/engine/survey/manifests.js';
import { writeTree } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

const manifest = (path: string, text: string) => readManifest(writeTree(tempDir(), { [path]: text }), path);

describe('manifests', () => {
  it('package.json: name, scripts, bin (string or map), main, exports, dependencies', () => {
    const m = manifest(
      'package.json',
      JSON.stringify({
        name: 'x',
        bin: 'cli.js',
        exports: { '.': { import: './esm/index.js' } },
        scripts: { test: 'jest' },
        dependencies: { a: '1' },
        devDependencies: { jest: '1' },
      }),
    );
    expect(m).toMatchObject({
      kind: 'npm',
      name: 'x',
      scripts: { test: 'jest' },
      dependencies: ['a'],
      devDependencies: ['jest'],
      problem: null,
    });
    expect(m?.entryPoints).toEqual([
      { field: 'bin', name: 'x', target: 'cli.js' },
      { field: 'exports', name: null, target: './esm/index.js' },
    ]);
  });

  it('a malformed package.json keeps its problem instead of failing the survey', () => {
    expect(manifest('package.json', '{"name": ')).toMatchObject({
      kind: 'npm',
      name: null,
      problem: expect.stringContaining('JSON'),
    });
    expect(manifest('package.json', '[1, 2]')).toMatchObject({ problem: 'not a JSON object' });
  });

  it('pyproject.toml with Poetry (multi-line strings and inline tables read by a real TOML parser)', () => {
    const m = manifest(
      'pyproject.toml',
      [
        '[tool.poetry]',
        "name = 'poetic'",
        'description = """',
        'Multi-line, read by smol-toml',
        '"""',
        '[tool.poetry.dependencies]',
        'python = "^3.11"',
        'httpx = { version = "^0.27" }',
        '[tool.poetry.group.dev.dependencies]',
        'pytest = "^8"',
        '[tool.poetry.scripts]',
        'poet = "poetic.main:run"',
      ].join('\n'),
    );
    expect(m).toMatchObject({
      name: 'poetic',
      description: 'Multi-line, read by smol-toml\n',
      dependencies: ['httpx'],
      devDependencies: ['pytest'],
      tools: ['poetry'],
    });
    expect(m?.entryPoints).toEqual([{ field: '[tool.poetry.scripts]', name: 'poet', target: 'poetic.main:run' }]);
  });

  it('go.mod: module path and requirements (block and single line)', () => {
    const m = manifest(
      'go.mod',
      'module github.com/acme/tool\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0 // indirect\n\tgolang.org/x/sync v0.7.0\n)\n\nrequire example.com/one v1.0.0\n',
    );
    expect(m).toMatchObject({
      kind: 'go',
      name: 'github.com/acme/tool',
      dependencies: ['github.com/spf13/cobra', 'golang.org/x/sync', 'example.com/one'],
    });
  });

  it('Cargo.toml: package, [[bin]] targets, dependencies', () => {
    const m = manifest(
      'Cargo.toml',
      '[package]\nname = "crab"\ndescription = "Rusty"\n\n[[bin]]\nname = "crab-cli"\npath = "src/bin/cli.rs"\n\n[dependencies]\nserde = "1"\ntokio = { version = "1", features = ["full"] }\n\n[dev-dependencies]\ninsta = "1"\n',
    );
    expect(m).toMatchObject({
      kind: 'cargo',
      name: 'crab',
      description: 'Rusty',
      dependencies: ['serde', 'tokio'],
      devDependencies: ['insta'],
    });
    expect(m?.entryPoints).toEqual([{ field: '[[bin]]', name: 'crab-cli', target: 'src/bin/cli.rs' }]);
  });

  it('other files are no manifest', () => {
    expect(manifest('setup.cfg', '[metadata]')).toBeUndefined();
  });
});
