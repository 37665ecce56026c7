import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDeliverable } from 'fed';
import { checkMarkdownText } from '../../../src/engine/deliverable/check-deliverable.js';
import { DOCUMENTATION_RULES } from 'fed/testing';
import { FIXTURES_DIR } from '../../helpers/fixture-process.js';

const fixture = (name: string) => join(FIXTURES_DIR, 'deliverables', name);
const violationsOf = (name: string) =>
  checkDeliverable(fixture(name)).violations.map(({ line, rule }) => ({ line, rule }));

describe('fed deliverable check: good documents', () => {
  it.each(['good.md', 'good-short.md'])('%s has no violation', (name) => {
    const check = checkDeliverable(fixture(name));
    expect(check.violations).toEqual([]);
    expect(check.ok).toBe(true);
    expect(check.file).toBe(fixture(name));
  });

  it('summarises the structure: title, sections with GitHub anchors, code blocks, diagrams, words, bytes', () => {
    const { summary } = checkDeliverable(fixture('good.md'));
    expect(summary.format).toBe('markdown');
    expect(summary.title).toBe('Signal delivery in the payments federation');
    expect(summary.sections.map((s) => s.anchor)).toEqual([
      'contents',
      'file-layout',
      'delivery-guarantees',
      'commands-and-examples',
      'how-the-parts-connect',
      'next-steps',
    ]);
    expect(summary.sections[1]).toEqual({ level: 2, title: 'File layout', anchor: 'file-layout', line: 14 });
    expect(summary.code_blocks.map((b) => b.language)).toEqual(['sh', 'json', 'mermaid']);
    expect(summary.diagrams).toEqual([{ language: 'mermaid', type: 'flowchart', line: summary.code_blocks[2]?.line }]);
    expect(summary.word_count).toBeGreaterThan(500);
    expect(summary.size_bytes).toBe(readFileSync(fixture('good.md')).length);
  });

  it('counts prose words only: code blocks do not make a document long', () => {
    const code = Array.from({ length: 600 }, (_, i) => `const v${i} = ${i};`).join('\n');
    const check = checkMarkdownText(
      `# Short\n\nOne sentence here. Another one here.\n\n\`\`\`ts\n${code}\n\`\`\`\n\n## Next steps\n\n- Read it.\n`,
    );
    expect(check.summary.word_count).toBe(11);
    expect(check.violations).toEqual([]);
  });

  it('recognises PlantUML blocks as diagrams', () => {
    const check = checkMarkdownText(
      '# T\n\nOne. Two.\n\n```plantuml\n@startuml\na -> b\n@enduml\n```\n\n## Next steps\n\n- Go.\n',
    );
    expect(check.summary.diagrams).toEqual([{ language: 'plantuml', type: 'uml', line: 5 }]);
  });
});

describe('fed deliverable check: one rule per bad document, reported with its line', () => {
  it.each([
    ['no-title.md', [{ line: 1, rule: 'title' }]],
    ['duplicate-title.md', [{ line: 15, rule: 'title' }]],
    ['title-not-first.md', [{ line: 3, rule: 'title' }]],
    ['summary-one-sentence.md', [{ line: 3, rule: 'summary' }]],
    ['summary-four-sentences.md', [{ line: 3, rule: 'summary' }]],
    ['summary-missing.md', [{ line: 3, rule: 'summary' }]],
    ['long-without-toc.md', [{ line: 6, rule: 'table-of-contents' }]],
    ['broken-anchor.md', [{ line: 17, rule: 'anchor-link' }]],
    ['setext-heading.md', [{ line: 6, rule: 'atx-heading' }]],
    ['fence-without-language.md', [{ line: 11, rule: 'code-language' }]],
    ['indented-code.md', [{ line: 13, rule: 'code-language' }]],
    ['star-list.md', [{ line: 8, rule: 'list-marker' }]],
    ['ordered-paren.md', [{ line: 17, rule: 'list-marker' }]],
    ['reference-link.md', [{ line: 17, rule: 'link-style' }]],
    ['mermaid-unknown.md', [{ line: 17, rule: 'mermaid-type' }]],
    ['no-next-steps.md', [{ line: 17, rule: 'next-steps' }]],
  ])('%s', (name, expected) => {
    expect(violationsOf(name)).toEqual(expected);
    expect(checkDeliverable(fixture(name)).ok).toBe(false);
  });

  it('every rule has a bad document above (and a name the skill explains)', () => {
    const skill = readFileSync(join(FIXTURES_DIR, '..', '..', 'skills', 'documentation-standards.md'), 'utf8');
    for (const rule of Object.keys(DOCUMENTATION_RULES))
      expect(skill, `skill explains ${rule}`).toContain(`\`${rule}\``);
  });

  it('says what is wrong and how to fix it', () => {
    const [summary] = checkDeliverable(fixture('summary-four-sentences.md')).violations;
    expect(summary?.message).toBe('the summary has 4 sentences; it needs 2–3');
    const [anchor] = checkDeliverable(fixture('broken-anchor.md')).violations;
    expect(anchor?.message).toContain('did you mean #where-the-code-lives?');
    const [marker] = checkDeliverable(fixture('star-list.md')).violations;
    expect(marker?.message).toBe('bullet list written with "*" (2 items): use "-"');
    const [mermaid] = checkDeliverable(fixture('mermaid-unknown.md')).violations;
    expect(mermaid?.message).toMatch(
      /^Mermaid block starts with "flowchat", which is no Mermaid diagram type; start it with one of flowchart/,
    );
  });

  it('reports every violation of a document, in line order', () => {
    const text = [
      'Intro line.',
      '',
      'Title',
      '=====',
      '',
      '* one',
      '',
      '```',
      'x',
      '```',
      '',
      '```mermaid',
      '```',
      '',
    ].join('\n');
    expect(checkMarkdownText(text).violations.map(({ line, rule }) => `${line} ${rule}`)).toEqual([
      '3 title',
      '3 atx-heading',
      '6 summary',
      '6 list-marker',
      '8 code-language',
      '12 mermaid-type',
      '13 next-steps',
    ]);
  });

  it('sentences: inline code and abbreviations do not split, line wrapping does not either', () => {
    const ok = checkMarkdownText(
      '# T\n\nRun `npm ci && npm test. Then` the build, e.g. with a\nwrapped line. It works.\n\n## Next steps\n\n- Go.\n',
    );
    expect(ok.violations).toEqual([]);
  });

  it('a Mermaid block may open with comments and front matter before its type', () => {
    const check = checkMarkdownText(
      '# T\n\nOne. Two.\n\n```mermaid\n---\ntitle: Flow\n---\n%% a comment\nsequenceDiagram\n  a->>b: hi\n```\n\n## Next steps\n\n- Go.\n',
    );
    expect(check.violations).toEqual([]);
    expect(check.summary.diagrams[0]?.type).toBe('sequenceDiagram');
  });
});

describe('GitHub heading anchors', () => {
  it('links to headings as GitHub anchors them: punctuation removed, spaces to hyphens, repeats numbered', () => {
    const titles = ['Next steps', 'fed init & skills', 'Café: über', 'API', 'API', 'API-1', 'snake_case `code`'];
    const anchors = ['next-steps', 'fed-init--skills', 'café-über', 'api', 'api-1', 'api-1-1', 'snake_case-code'];
    const doc = [
      '# Title',
      '',
      'One two three.',
      '',
      ...titles.map((t) => `## ${t}\n\nText.\n`),
      ...anchors.map((a) => `- [to ${a}](#${a})`),
    ].join('\n');
    expect(checkMarkdownText(doc).violations.filter((v) => v.message.includes('anchor'))).toEqual([]);
    expect(
      checkMarkdownText(`${doc}\n- [gone](#api-2)\n`)
        .violations.map((v) => v.message)
        .join('\n'),
    ).toContain('#api-2');
  });
});
