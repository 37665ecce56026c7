import { describe, expect, it } from 'vitest';
import { checkMarkdownText } from '../../../src/engine/deliverable/check-deliverable.js';
import { MARKDOWN_LIMITS, markdownLimitProblem } from '../../../src/engine/deliverable/markdown-limits.js';

/** About 40 KB of `line`, after a title: the size of the hostile deliverables issue 26 found. */
const fortyKilobytesOf = (line: string) => `# Title\n\n${`${line}\n`.repeat(Math.ceil(40_000 / (line.length + 1)))}`;

describe('Markdown limits: list nesting and list items', () => {
  // The parser copies its whole event list whenever a list item ends, so these took minutes
  // (and a single line of thousands of markers overflowed the stack); the limits refuse them first.
  it.each([
    ['list markers nested on every line', fortyKilobytesOf(`${'- '.repeat(40)}text`)],
    ['mixed markers nested on every line', fortyKilobytesOf(`${'1. - * + '.repeat(10)}text`)],
    ['two markers on every line', fortyKilobytesOf('- - text')],
    ['an ordinary nested list, thousands of items', fortyKilobytesOf('- item\n  - sub-item')],
    ['one line of 5 000 markers', `# Title\n\n${'- '.repeat(5_000)}text\n`],
  ])('%s: refused before parsing, with the line and the limit', { timeout: 60_000 }, (_, text) => {
    expect(markdownLimitProblem(text)).toMatch(
      /^line \d+ (opens \d+ nested lists|brings the list items to \d+), over the limit/,
    );
    expect(() => checkMarkdownText(text, undefined, undefined, 'hostile.md')).toThrow(
      /hostile\.md is refused before it is checked: line \d+/,
    );
  });

  it('real nesting stays within the limits: a few levels, lists in quotes, rules, fenced YAML', () => {
    const fencedYaml = `\`\`\`yaml\n${'- - item\n'.repeat(MARKDOWN_LIMITS.listItems)}\`\`\``;
    const text = [
      '# Title',
      '',
      '- one\n  - two\n    - three\n      1. four',
      '> - quoted\n>   - nested',
      '- - -',
      '* * *',
      fencedYaml,
      `${'- '.repeat(MARKDOWN_LIMITS.lineLists)}deepest allowed`,
      '',
    ].join('\n');
    expect(markdownLimitProblem(text)).toBeUndefined();
    expect(checkMarkdownText(text).summary.title).toBe('Title');
  });

  it(`${MARKDOWN_LIMITS.listItems} list items pass, one more is refused`, () => {
    const items = (n: number) => `# Title\n\n- top\n${'  - nested\n'.repeat(n - 1)}`;
    expect(markdownLimitProblem(items(MARKDOWN_LIMITS.listItems))).toBeUndefined();
    expect(markdownLimitProblem(items(MARKDOWN_LIMITS.listItems + 1))).toMatch(
      /^line 1003 brings the list items to 1001, over the limit of 1000 for a document of 1004 lines/,
    );
  });

  it('a long document has room for fewer list items: items times lines is bounded', () => {
    const lines = MARKDOWN_LIMITS.listItemLines / 100;
    const text = `# Title\n\n${'- item\n'.repeat(101)}${'prose\n'.repeat(lines - 104)}`;
    expect(text.split('\n')).toHaveLength(lines);
    expect(markdownLimitProblem(text)).toMatch(
      /^line 103 brings the list items to 101, over the limit of 100 for a document of 20000 lines/,
    );
  });
});
