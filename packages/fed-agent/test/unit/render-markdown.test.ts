import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../../src/excerpt.js';
import { distillInsights } from '../../src/insights.js';
import { searchMission } from '../../src/mission-search.js';
import { planOutline } from '../../src/outline.js';
import { renderDeliverable } from '../../src/render-markdown.js';
import { surveyCodebase, topLevelSources } from 'fed/survey';
import { analyseMarkdown, checkMarkdownText } from 'fed/agent';
import { pythonProject, typescriptProject, writeTree } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

const MISSION = { subject: 'Write a guide for newcomers', body: 'Explain where to start.' };

function render(codebase: string, mission = MISSION): string {
  const survey = surveyCodebase(codebase);
  const outline = planOutline(mission, topLevelSources(codebase), survey.name);
  const search = searchMission(survey, outline.topics);
  const doc = renderDeliverable({
    survey,
    outline,
    search,
    insights: distillInsights(survey, search),
    excerpt: selectExcerpt(survey),
    mission,
  });
  // Its table of contents is inserted into the draft's analysis: the analysis must be the document's own.
  expect(doc).toEqual(analyseMarkdown(doc.text));
  return doc.text;
}

const h2 = (markdown: string) =>
  checkMarkdownText(markdown)
    .summary.sections.filter((s) => s.level === 2)
    .map((s) => s.title);

describe('planning the outline from the mission', () => {
  it.each([
    [{ subject: 'Document the architecture', body: '' }, 'architecture'],
    [{ subject: 'Audit error handling', body: 'Look at the architecture too.' }, 'audit'],
    [{ subject: 'Please help', body: 'We need a security review of the module structure.' }, 'audit'],
    [{ subject: 'Explain the module structure', body: 'Also review it.' }, 'architecture'],
    [{ subject: 'How do signals reach a team?', body: '' }, 'flow'],
    [{ subject: 'Survey the codebase', body: 'Read-only study.' }, 'overview'],
  ] as const)('%j → %s', (mission, kind) => {
    const outline = planOutline(mission, ['src'], 'fed');
    expect(outline.kind).toBe(kind);
    expect(outline.sources).toEqual(['src']);
    expect(outline.sections[0]).toBe('findings');
  });
});

describe('the deliverable', () => {
  it('for a TypeScript project passes the documentation standards and carries the facts a newcomer needs', () => {
    const markdown = render(typescriptProject(tempDir()));
    const check = checkMarkdownText(markdown);
    expect(check.violations).toEqual([]);
    // "A guide for newcomers" is an onboarding guide.
    expect(check.summary.title).toBe('Getting started with tiny-ts');
    expect(h2(markdown)).toEqual(
      expect.arrayContaining([
        'Key findings',
        'How to build and run it',
        'Entry points',
        'Module dependencies',
        'Tests',
        'Next steps',
      ]),
    );
    expect(h2(markdown).at(-1)).toBe('Next steps');
    expect(check.summary.code_blocks.map((b) => b.language)).toEqual(
      expect.arrayContaining(['json', 'sh', 'ts', 'mermaid', 'text']),
    );
    expect(check.summary.diagrams).toEqual([{ language: 'mermaid', type: 'flowchart', line: expect.any(Number) }]);
    expect(markdown).toContain('"test": "vitest run"');
    expect(markdown).toContain('npm ci\nnpm run build\nnpm test');
    expect(markdown).toContain('["src/core/"]');
    expect(markdown).toContain('["src/*"]');
    expect(markdown).toMatch(/^ {2}m\d+ --> m\d+$/m);
    expect(markdown).toContain('`src/core/engine.ts` | 1 | line 3: `TODO: cache the results`');
  });

  it('gets a table of contents exactly when it runs over 500 words', () => {
    const long = render(typescriptProject(tempDir()));
    const short = render(writeTree(tempDir(), { 'main.py': 'print(1)\n' }));
    for (const markdown of [long, short]) {
      const { summary } = checkMarkdownText(markdown);
      expect(h2(markdown).includes('Contents'), `${summary.word_count} words`).toBe(summary.word_count > 500);
      expect(checkMarkdownText(markdown).violations).toEqual([]);
    }
    expect(h2(long)).toContain('Contents');
    expect(h2(short)).not.toContain('Contents');
  });

  it('for a Python project draws the folders instead of an import graph', () => {
    const markdown = render(pythonProject(tempDir()), { subject: 'Document the architecture', body: '' });
    const check = checkMarkdownText(markdown);
    expect(check.violations).toEqual([]);
    expect(check.summary.title).toBe('Architecture of tiny-py');
    expect(markdown).toContain('The modules do not import each other across folders');
    expect(check.summary.diagrams[0]?.type).toBe('flowchart');
    // Install, build, test, run: the steps in the order a newcomer takes them.
    expect(markdown).toContain('pip install -e .\npytest\ntiny --help');
  });

  it('orders the sections as the template of the mission asks', () => {
    const markdown = render(typescriptProject(tempDir()), { subject: 'Audit the code', body: '' });
    const sections = h2(markdown).filter((t) => t !== 'Contents');
    expect(sections.slice(0, 3)).toEqual(['Key findings', 'TODO and FIXME hotspots', 'Largest source files']);
  });

  it('stays valid whatever the codebase and the mission contain', () => {
    const root = join(tempDir(), 'we`ird_name *x*');
    mkdirSync(root);
    writeTree(root, { 'a|b.ts': "import './c`d.js';\n", 'c`d.ts': '// TODO: `tick` | pipe\n' });
    const mission = {
      subject: 'Setext?\n=====',
      body: '# Not a title\n\n* star list\n\n```\nfence without language\n```\n',
    };
    const markdown = render(root, mission);
    expect(checkMarkdownText(markdown).violations).toEqual([]);
    expect(checkMarkdownText(markdown).summary.title).toBe('we`ird_name *x*: Setext? =====');
  });
});

describe('the deliverable for a monorepo', () => {
  it('lists the packages with their entry points, draws the graph between them, and keeps runtime and development dependencies apart', () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({
        name: 'acme',
        private: true,
        workspaces: ['packages/*'],
        devDependencies: { typescript: '^5' },
      }),
      'packages/core/package.json': JSON.stringify({
        name: '@acme/core',
        main: 'src/index.ts',
        dependencies: { zod: '^4' },
        devDependencies: { vitest: '^4', '@acme/testkit': '*' },
      }),
      'packages/core/src/index.ts': 'export const core = 1;\n',
      'packages/testkit/package.json': JSON.stringify({ name: '@acme/testkit', main: 'src/index.ts' }),
      'packages/testkit/src/index.ts': 'export const kit = 1;\n',
      'packages/web/package.json': JSON.stringify({
        name: '@acme/web',
        bin: { web: 'src/main.ts' },
        dependencies: { '@acme/core': '*' },
      }),
      'packages/web/src/main.ts': "import { core } from '@acme/core';\nconsole.log(core);\n",
    });
    const markdown = render(root, { subject: 'Document the architecture', body: '' });
    expect(checkMarkdownText(markdown).violations).toEqual([]);
    expect(h2(markdown)).toContain('Packages');
    expect(markdown).toContain(
      [
        '| Package | Folder | Entry points | Dependencies |',
        '|---|---|---|---|',
        '| `@acme/core` | `packages/core/` | `packages/core/src/index.ts` | 1 runtime, 2 development |',
        '| `@acme/testkit` | `packages/testkit/` | `packages/testkit/src/index.ts` | 0 runtime, 0 development |',
        '| `@acme/web` | `packages/web/` | `packages/web/src/main.ts` | 1 runtime, 0 development |',
      ].join('\n'),
    );
    expect(markdown).toContain(
      '```mermaid\nflowchart LR\n  p0["@acme/core"]\n  p1["@acme/testkit"]\n  p2["@acme/web"]\n  p0 -.-> p1\n  p2 --> p0\n```',
    );
    expect(markdown).toContain('| `package.json` | 0: none | 1: `typescript` |');
    expect(markdown).toContain('| `packages/core/package.json` | 1: `zod` | 2: `vitest`, `@acme/testkit` |');
  });
});
