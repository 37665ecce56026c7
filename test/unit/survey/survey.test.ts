import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_ANALYSED_BYTES, takeInventory, topLevelSources, walkCodebase } from 'fed/testing';
import { surveyCodebase } from '../../../src/engine/survey/survey.js';
import { pythonProject, typescriptProject, writeTree } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

const paths = (root: string) => walkCodebase(root).files.map((f) => f.path);

describe('walking a codebase', () => {
  it('skips .git/, .fed/, the root federate.config.json and federation report, node_modules/ and what the root .gitignore ignores', () => {
    const root = typescriptProject(tempDir());
    writeTree(root, {
      '.fed/teams/docs/deliverable.md': '# x\n',
      'packages/a/node_modules/x.js': '',
      'federate.config.json': '{"federationReport": "fleet-report.md"}\n',
      // The report `fed run` writes, under the name the config gives it.
      'fleet-report.md': '# Federation report: x\n',
      'packages/b/.fed/x.json': '{}',
    });
    expect(paths(root)).toEqual([
      '.gitignore',
      'README.md',
      'package-lock.json',
      'package.json',
      'src/cli.ts',
      'src/commands/run.ts',
      'src/core/engine.ts',
      'src/index.ts',
      'src/util/helper.ts',
      'test/engine.test.ts',
    ]);
    // A folder is a source even when all it holds is skipped: the scan decides.
    expect(topLevelSources(root)).toEqual([
      '.gitignore',
      'README.md',
      'package-lock.json',
      'package.json',
      'packages',
      'src',
      'test',
    ]);
  });

  it('applies nested .gitignore files relative to their folder, deepest rule first (negations included)', () => {
    const root = writeTree(tempDir(), {
      '.gitignore': '*.gen.ts\n',
      'src/a.ts': '',
      'src/a.gen.ts': '',
      'src/generated/.gitignore': '!keep.gen.ts\nlocal/\n',
      'src/generated/keep.gen.ts': '',
      'src/generated/drop.gen.ts': '',
      'src/generated/local/x.ts': '',
      'local/y.ts': '',
    });
    expect(paths(root)).toEqual([
      '.gitignore',
      'local/y.ts',
      'src/a.ts',
      'src/generated/.gitignore',
      'src/generated/keep.gen.ts',
    ]);
  });

  it('reports a dangling symbolic link as unreadable and does not follow links to directories', () => {
    // Tests run as root, which can read any file whatever its mode: unreadability is made real with a
    // link whose target does not exist, and a link to a folder (which could loop) is not followed.
    const root = writeTree(tempDir(), { 'src/a.ts': 'export {};\n', 'elsewhere/b.ts': '' });
    symlinkSync(join(root, 'missing.ts'), join(root, 'src', 'broken.ts'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'src', 'linked-dir'));
    symlinkSync(join(root, 'src', 'a.ts'), join(root, 'src', 'alias.ts'));
    const walk = walkCodebase(root);
    expect(walk.files.map((f) => f.path)).toEqual(['elsewhere/b.ts', 'src/a.ts', 'src/alias.ts']);
    expect(walk.unreadable).toEqual([{ path: 'src/broken.ts', reason: 'dangling symbolic link' }]);
    expect(topLevelSources(writeTree(tempDir(), {}))).toEqual([]);
  });
});

describe('taking the inventory', () => {
  it('counts lines, tells binary files apart and probes files too large to analyse', () => {
    const root = writeTree(tempDir(), {
      'a.ts': 'one\ntwo\nthree',
      'b.md': 'one\ntwo\n',
      'empty.py': '',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
      'blob.dat': Buffer.from([1, 0, 2, 10, 3]),
      'huge.json': 'x\n'.repeat(MAX_ANALYSED_BYTES),
    });
    const { files, unreadable } = takeInventory(walkCodebase(root));
    const byPath = Object.fromEntries(files.map((f) => [f.path, f]));
    expect(unreadable).toEqual([]);
    expect(byPath['a.ts']).toMatchObject({ lines: 3, binary: false, analysed: true, language: { name: 'TypeScript' } });
    expect(byPath['b.md']).toMatchObject({ lines: 2, language: { name: 'Markdown', kind: 'docs' } });
    expect(byPath['empty.py']).toMatchObject({ lines: 0, bytes: 0, analysed: true });
    expect(byPath['logo.png']).toMatchObject({ binary: true, analysed: false, lines: 0, bytes: 7 });
    expect(byPath['blob.dat']).toMatchObject({ binary: true, analysed: false, language: null });
    expect(byPath['huge.json']).toMatchObject({
      binary: false,
      analysed: false,
      lines: 0,
      bytes: 2 * MAX_ANALYSED_BYTES,
    });
  });

  it('a directory where a file was expected is unreadable, not fatal', () => {
    const root = writeTree(tempDir(), { 'ok.ts': '' });
    mkdirSync(join(root, 'not-a-file.ts'));
    const walk = walkCodebase(root);
    walk.files.push({ path: 'not-a-file.ts', absolute: join(root, 'not-a-file.ts') });
    const inventory = takeInventory(walk);
    expect(inventory.files.map((f) => f.path)).toEqual(['ok.ts']);
    expect(inventory.unreadable).toEqual([{ path: 'not-a-file.ts', reason: 'EISDIR' }]);
  });
});

describe('surveying a TypeScript project', () => {
  const survey = () => surveyCodebase(typescriptProject(tempDir()));

  it('names the project and counts files, lines and languages', () => {
    const s = survey();
    expect(s.name).toBe('tiny-ts');
    expect(s.description).toBe('A tiny TypeScript tool');
    expect(s.totals.files).toBe(10);
    expect(s.languages[0]).toMatchObject({ name: 'TypeScript', kind: 'code', files: 6 });
    expect(s.layout.map((e) => [e.path, e.folder, e.role])).toEqual([
      ['src', true, 'source code'],
      ['.gitignore', false, null],
      ['package-lock.json', false, null],
      ['package.json', false, null],
      ['README.md', false, null],
      ['test', true, 'tests'],
    ]);
    expect(s.packageManager).toBe('npm');
  });

  it('finds the entry points declared in package.json behind their build output', () => {
    expect(survey().entryPoints).toEqual([
      { path: 'src/cli.ts', reason: 'declared in package.json bin "tiny" (dist/cli.js)', confidence: 'high' },
      { path: 'src/index.ts', reason: 'declared in package.json main (dist/index.js)', confidence: 'high' },
    ]);
  });

  it('finds the tests and their runner, the TODO markers in comments only, and the module graph', () => {
    const s = survey();
    expect(s.tests).toEqual({
      files: 1,
      folders: [{ path: 'test', files: 1 }],
      runner: 'vitest',
      command: 'npm test',
      runnerSource: 'manifest',
    });
    expect(s.todoCount).toBe(2);
    expect(s.todos.map((t) => [t.path, t.first.tag, t.first.line])).toEqual([
      ['src/core/engine.ts', 'TODO', 3],
      ['src/util/helper.ts', 'FIXME', 1],
    ]);
    expect(s.graph.grouping).toBe('folder');
    expect(s.graph.modules).toBe(5);
    expect(s.graph.external).toEqual([{ name: 'zod', files: 1 }]);
    expect(s.graph.edges).toEqual([
      { from: 'src', to: 'src/commands', imports: 1 },
      { from: 'src', to: 'src/core', imports: 1 },
      { from: 'src/commands', to: 'src/core', imports: 1 },
      { from: 'src/commands', to: 'src/util', imports: 1 },
      { from: 'src/core', to: 'src/util', imports: 1 },
    ]);
    expect(s.largest[0]?.path).toBe('src/commands/run.ts');
  });
});

describe('surveying a Python project', () => {
  it('reads pyproject.toml: name, console script entry point, pytest', () => {
    const s = surveyCodebase(pythonProject(tempDir()));
    expect(s.name).toBe('tiny-py');
    expect(s.description).toBe('A tiny Python tool');
    expect(s.manifests[0]).toMatchObject({
      kind: 'python',
      dependencies: ['requests', 'click'],
      devDependencies: ['pytest'],
      tools: ['pytest'],
    });
    expect(s.entryPoints[0]).toEqual({
      path: 'src/tiny_py/cli.py',
      reason: 'declared in pyproject.toml [project.scripts] "tiny" (tiny_py.cli:main)',
      confidence: 'high',
    });
    expect(s.tests).toMatchObject({ files: 1, runner: 'pytest', command: 'pytest' });
    expect(s.languages.find((l) => l.kind === 'code')).toMatchObject({ name: 'Python', files: 3 });
    expect(s.todos[0]).toMatchObject({
      path: 'src/tiny_py/cli.py',
      first: { tag: 'FIXME', text: 'FIXME: handle errors' },
    });
    // Python imports are read too: the declared `click` is external, the standard library is not counted.
    expect(s.graph).toMatchObject({
      modules: 2,
      languages: ['Python'],
      internalImports: 0,
      external: [{ name: 'click', files: 1 }],
    });
  });
});

describe('surveying an empty or unreadable codebase', () => {
  it('an empty folder has no files and nothing unreadable', () => {
    const s = surveyCodebase(tempDir());
    expect(s.totals).toEqual({ files: 0, lines: 0, bytes: 0 });
    expect(s.unreadable).toEqual([]);
  });

  it('a codebase of dangling links has only unreadable entries', () => {
    const root = tempDir();
    symlinkSync(join(root, 'gone.ts'), join(root, 'main.ts'));
    writeFileSync(join(root, '.gitignore'), '');
    const s = surveyCodebase(root);
    expect(s.files.map((f) => f.path)).toEqual(['.gitignore']);
    expect(s.unreadable).toEqual([{ path: 'main.ts', reason: 'dangling symbolic link' }]);
  });
});
