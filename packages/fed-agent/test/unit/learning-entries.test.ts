import { describe, expect, it } from 'vitest';
import { learningEntries } from '../../src/learning-entries.js';
import { surveyCodebase } from 'fed/survey';
import { writeTree } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

const NOW = new Date('2026-01-31T12:00:00.000Z');
const confidenceOf = (root: string) =>
  new Map(learningEntries(surveyCodebase(root), 'docs', NOW).map((e) => [e.content, e.confidence]));

describe('learning-log confidence says how a finding was learned', () => {
  it('high from manifests and parsed code, medium from names, low from a config file guess', () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
      'packages/api/package.json': JSON.stringify({
        name: '@shop/api',
        main: 'src/index.ts',
        dependencies: { '@shop/db': '*' },
      }),
      'packages/api/src/index.ts': "import { connect } from '@shop/db';\nconnect();\n",
      'packages/db/package.json': JSON.stringify({ name: '@shop/db', main: 'src/index.ts' }),
      'packages/db/src/index.ts': 'export const connect = () => 1;\n',
      'scripts/server.py': 'print("dev server")\n',
      'conftest.py': '',
      'tests/test_server.py': 'def test_server():\n    pass\n',
    });
    const entries = confidenceOf(root);
    expect(
      entries.get('a monorepo of 2 packages (package.json): @shop/api in packages/api/, @shop/db in packages/db/'),
    ).toBe('high');
    expect(entries.get('package @shop/api depends on package @shop/db')).toBe('high');
    expect(entries.get('packages/api/src/index.ts: declared in packages/api/package.json main (src/index.ts)')).toBe(
      'high',
    );
    expect(entries.get('4 Python/TypeScript modules with 1 resolved imports between them, in 4 groups')).toBe('high');
    expect(entries.get('packages/ holds 4 files and 5 lines')).toBe('high');
    expect(entries.get('packages/ probably holds workspace packages (from its name)')).toBe('medium');
    expect(entries.get('scripts/server.py: probably an entry point (conventional name)')).toBe('medium');
    expect(entries.get('tests run with pytest (pytest), guessed from a config file')).toBe('low');
    expect(entries.get('1 test files (by their folder or name), most under tests')).toBe('medium');
  });
});
