import { describe, expect, it } from 'vitest';
import { buildModuleGraph, MAX_EDGES, MAX_GROUPS } from '../../../src/engine/survey/import-graph.js';
import { type FileRecord, isTestFile, languageOf } from 'fed/testing';

const file = (path: string, imports: string[] = []): FileRecord => ({
  path,
  bytes: 10,
  language: languageOf(path),
  lines: 1,
  binary: false,
  analysed: true,
  todos: [],
  imports,
  runsAsProgram: false,
  test: isTestFile(path),
  machineWritten: false,
});

describe('module graph', () => {
  it('resolves NodeNext .js specifiers, extensionless ones and folder indexes; leaves out tests', () => {
    const graph = buildModuleGraph([
      file('a/main.ts', ['../b/util.js', '../c', '../d/helper']),
      file('b/util.ts'),
      file('c/index.ts'),
      file('d/helper.tsx'),
      file('test/main.test.ts', ['../a/main.js']),
    ]);
    expect(graph.modules).toBe(4);
    expect(graph.internalImports).toBe(3);
    expect(graph.grouping).toBe('folder');
    expect(graph.edges.map((e) => `${e.from}->${e.to}`).sort()).toEqual(['a->b', 'a->c', 'a->d']);
  });

  it('counts external packages by file, without builtins or path aliases', () => {
    const graph = buildModuleGraph([
      file('x.ts', ['node:fs', 'path', 'zod', '@scope/pkg/deep', '@/alias', '#internal']),
      file('y.js', ['zod', 'lodash/fp']),
    ]);
    expect(graph.external).toEqual([
      { name: 'zod', files: 2 },
      { name: '@scope/pkg', files: 1 },
      { name: 'lodash', files: 1 },
    ]);
  });

  it(`keeps at most ${MAX_GROUPS} groups (the best connected) and ${MAX_EDGES} links, merging the rest into "other"`, () => {
    const files: FileRecord[] = [];
    // Each module imports the six before it: far more links than a readable diagram holds.
    for (let i = 0; i < 40; i++)
      files.push(
        file(
          `pkg/m${i}/index.ts`,
          Array.from({ length: Math.min(i, 6) }, (_, k) => `../m${i - 1 - k}/index.js`),
        ),
      );
    const graph = buildModuleGraph(files);
    expect(graph.groups).toHaveLength(MAX_GROUPS);
    expect(graph.groups.at(-1)).toMatchObject({ id: 'other', files: 40 - (MAX_GROUPS - 1) });
    expect(graph.edges.length).toBeLessThanOrEqual(MAX_EDGES);
    expect(graph.edges.every((e) => e.from !== e.to)).toBe(true);
    expect(graph.omittedEdges + graph.edges.length).toBeGreaterThan(MAX_EDGES);
  });

  it('groups by file when folders do not split the modules', () => {
    const graph = buildModuleGraph([file('src/a.ts', ['./b.js']), file('src/b.ts'), file('src/c.ts', ['./a.js'])]);
    expect(graph.grouping).toBe('file');
    expect(graph.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['src/a.ts->src/b.ts', 'src/c.ts->src/a.ts']);
    expect(graph.groups.find((g) => g.id === 'src/a.ts')?.dependents).toBe(1);
  });
});
