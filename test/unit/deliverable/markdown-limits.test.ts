import { describe, expect, it } from 'vitest';
import { checkMarkdownText } from 'fed/testing';
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
    const lines = MARKDOWN_LIMITS.listItemLines / 250;
    const text = `# Title\n\n${'- item\n'.repeat(251)}${'prose\n'.repeat(lines - 254)}`;
    expect(text.split('\n')).toHaveLength(lines);
    expect(markdownLimitProblem(text)).toMatch(
      /^line 253 brings the list items to 251, over the limit of 250 for a document of 8000 lines/,
    );
  });
});

/** A line one over a limit is refused with this message; the same at the limit passes. */
describe('Markdown limits: each bound, at it and one past it', () => {
  const { bytes, indentColumns, quoteDepth, bracketDepth, delimiterRun, lineLists } = MARKDOWN_LIMITS;

  it('size in bytes, not characters', () => {
    expect(markdownLimitProblem('a'.repeat(bytes))).toBeUndefined();
    expect(markdownLimitProblem('a'.repeat(bytes + 1))).toBe(
      `it is ${bytes + 1} bytes, over the ${bytes}-byte limit of a Markdown deliverable; split it or link to the detail`,
    );
    // Fewer characters than the limit, more bytes.
    expect(markdownLimitProblem('é'.repeat(bytes / 2 + 1))).toMatch(/^it is 262146 bytes, over/);
  });

  it('indentation in columns, a tab four of them, on the line it is', () => {
    expect(markdownLimitProblem(`${' '.repeat(indentColumns)}x`)).toBeUndefined();
    expect(markdownLimitProblem(`${'\t'.repeat(indentColumns / 4)}x`)).toBeUndefined();
    expect(markdownLimitProblem(`# T\n\n${'\t'.repeat(indentColumns / 4)} x`)).toBe(
      `line 3 is indented ${indentColumns + 1} columns, over the ${indentColumns}-column limit (nesting that deep is not a readable document)`,
    );
    expect(markdownLimitProblem(`${' '.repeat(indentColumns + 1)}x`)).toMatch(/^line 1 is indented 97 columns/);
  });

  it('blockquote depth, with or without spaces between the markers', () => {
    expect(markdownLimitProblem(`${'>'.repeat(quoteDepth)} x`)).toBeUndefined();
    expect(markdownLimitProblem(`${'> '.repeat(quoteDepth)}x`)).toBeUndefined();
    expect(markdownLimitProblem(`ok\n${'>'.repeat(quoteDepth + 1)} x`)).toBe(
      `line 2 nests ${quoteDepth + 1} blockquotes, over the limit of ${quoteDepth}`,
    );
    expect(markdownLimitProblem(`${'> \t'.repeat(quoteDepth + 1)}x`)).toMatch(/^line 1 nests 33 blockquotes/);
  });

  it('lists and blockquotes opened by one line, together', () => {
    const line = (quotes: number) => `${'> '.repeat(quotes)}${'- '.repeat(lineLists)}x`;
    expect(markdownLimitProblem(line(quoteDepth - lineLists))).toBeUndefined();
    expect(markdownLimitProblem(line(quoteDepth - lineLists + 1))).toBe(
      `line 1 opens ${quoteDepth + 1} nested lists and blockquotes, over the limit of ${quoteDepth}`,
    );
    expect(markdownLimitProblem(`${'1) '.repeat(lineLists + 1)}x`)).toBe(
      `line 1 opens ${lineLists + 1} nested lists, over the limit of ${lineLists} on one line`,
    );
    // A marker needs a space or the line's end after it: `-x` and `1.5` open nothing.
    expect(markdownLimitProblem(`${'- '.repeat(lineLists)}-x 1.5 -`)).toBeUndefined();
    expect(markdownLimitProblem(`${'- '.repeat(lineLists)}1.`)).toMatch(/^line 1 opens 9 nested lists/);
  });

  it('open "[" across the lines of a paragraph; a blank line, a "]" or a backslash ends or skips one', () => {
    expect(markdownLimitProblem(`${'['.repeat(bracketDepth)}x`)).toBeUndefined();
    expect(markdownLimitProblem(`${'['.repeat(bracketDepth + 1)}x`)).toBe(
      `line 1 opens ${bracketDepth + 1} nested "[", over the limit of ${bracketDepth}`,
    );
    expect(markdownLimitProblem(`${'['.repeat(20)}\n${'['.repeat(13)}`)).toMatch(/^line 2 opens 33 nested "\["/);
    expect(markdownLimitProblem(`${'['.repeat(20)}\n \t\n${'['.repeat(13)}`)).toBeUndefined();
    expect(markdownLimitProblem(`${'['.repeat(20)}]${'['.repeat(13)}`)).toBeUndefined();
    expect(markdownLimitProblem(`${'['.repeat(20)}]${'['.repeat(14)}`)).toMatch(/^line 1 opens 33 nested/);
    // Below none is none: closing more than was opened leaves no credit.
    expect(markdownLimitProblem(`${']'.repeat(5)}${'['.repeat(bracketDepth + 1)}`)).toMatch(/opens 33 nested/);
    expect(markdownLimitProblem('\\['.repeat(bracketDepth + 10))).toBeUndefined();
    expect(markdownLimitProblem(`${'[a]'.repeat(100)}`)).toBeUndefined();
  });

  it('a run of one emphasis marker; alternating markers, an escape and a thematic break are not one', () => {
    expect(markdownLimitProblem(`a${'*'.repeat(delimiterRun)}`)).toBeUndefined();
    expect(markdownLimitProblem(`a${'*'.repeat(delimiterRun + 1)}`)).toBe(
      `line 1 has a run of over ${delimiterRun} "*", over the limit for emphasis markers`,
    );
    expect(markdownLimitProblem(`a${'_'.repeat(delimiterRun + 1)}`)).toMatch(/run of over 64 "_"/);
    expect(markdownLimitProblem(`a${'*_'.repeat(delimiterRun)}`)).toBeUndefined();
    expect(markdownLimitProblem(`a${'*'.repeat(40)}_${'*'.repeat(40)}`)).toBeUndefined();
    expect(markdownLimitProblem(`a${'*'.repeat(40)}\\*${'*'.repeat(40)}`)).toBeUndefined();
    expect(markdownLimitProblem(`a${'*'.repeat(40)}b${'*'.repeat(40)}`)).toBeUndefined();
    expect(markdownLimitProblem('*'.repeat(delimiterRun * 2))).toBeUndefined();
    expect(markdownLimitProblem(` ${'_ '.repeat(delimiterRun * 2)}`)).toBeUndefined();
  });

  it('horizontal rules open no list; list markers do', () => {
    for (const rule of ['- - - - - - - - - -', '   * * * * * * * * * *', '___', '-\t-\t-'])
      expect(markdownLimitProblem(`${rule}`)).toBeUndefined();
    expect(markdownLimitProblem(`${'- '.repeat(lineLists + 1)}x`)).toMatch(/^line 1 opens 9 nested lists/);
    // Indented four columns, it is not a rule: its markers are lists.
    expect(markdownLimitProblem(`    ${'- '.repeat(lineLists + 1)}`)).toMatch(/^line 1 opens 9 nested lists/);
  });

  it('a fenced block is not structure until the fence that closes it: the same marker, at least as long, alone', () => {
    const deep = `${'- '.repeat(lineLists + 1)}x`;
    expect(markdownLimitProblem(`\`\`\`\n${deep}\n\`\`\``)).toBeUndefined();
    expect(markdownLimitProblem(`~~~~\n${deep}\n~~~~~`)).toBeUndefined();
    expect(markdownLimitProblem(`\`\`\`\n\`\`\`\n${deep}`)).toMatch(/^line 3 opens 9 nested lists/);
    // Not closed: a tilde fence by backticks, a long fence by a shorter one, a fence by one with text after it.
    expect(markdownLimitProblem(`~~~\n\`\`\`\n${deep}\n~~~`)).toBeUndefined();
    expect(markdownLimitProblem(`\`\`\`\`\n\`\`\`\n${deep}\n\`\`\`\``)).toBeUndefined();
    expect(markdownLimitProblem(`\`\`\`\n\`\`\` js\n${deep}\n\`\`\``)).toBeUndefined();
    // An opening line with a backtick in its info string is no fence.
    expect(markdownLimitProblem(`\`\`\`a\`b\n${deep}`)).toMatch(/^line 2 opens 9 nested lists/);
  });
});

describe('Markdown limits: what the parser spends most on, counted before it runs', () => {
  const { lines, markupChars, linkOpeners, pipes } = MARKDOWN_LIMITS;
  /** Long lines of prose, so only the counted characters come near a bound. */
  const withProse = (text: string) => `# T\n\n${text}\n\n${'Plain words here. '.repeat(50)}\n`;

  // Each took 49–91 s to check (and froze the dashboard's page) under the byte limit.
  it.each([
    ['`x` lines', `# T\n\n${'x\n'.repeat(125_000)}`, /^it has 125003 lines, over the limit of 8000/],
    [
      '`<`',
      `# T\n\n${'<'.repeat(250_000)}`,
      /^line 3 brings the markup characters .* to 250000, over the limit of 20000/,
    ],
    ['`&#`', `# T\n\n${'&#'.repeat(120_000)}`, /^line 3 brings the markup characters .* to 120000, over the limit/],
    [
      '`|`',
      `# T\n\n${'|'.repeat(250_000)}`,
      /^line 3 brings the "\|" outside code blocks to 250000, over the limit of 6000/,
    ],
    [
      '`[a]`',
      `# T\n\n${'[a]'.repeat(80_000)}`,
      /^line 3 brings the "\[" outside code blocks to 80000, over the limit of 2000/,
    ],
  ])('%s filling the byte limit: refused before parsing, naming the bound', (_, text, reason) => {
    expect(markdownLimitProblem(text)).toMatch(reason);
  });

  it('lines: at the limit passes, one more is refused', () => {
    // Paragraphs of two lines, so only the document's lines come near a bound.
    const paragraphs = `${'x\nx\n\n'.repeat((lines - 2) / 3)}x\n`;
    expect(paragraphs.split('\n')).toHaveLength(lines);
    expect(markdownLimitProblem(paragraphs)).toBeUndefined();
    expect(markdownLimitProblem(`${paragraphs}\n`)).toMatch(/^it has 8001 lines, over the limit of 8000/);
  });

  it("a paragraph's lines: at the limit passes, one more is refused; blank lines, fences and table rows end or skip none", () => {
    const { paragraphLines } = MARKDOWN_LIMITS;
    // 8 000 short lines in one paragraph took 2.5 s to parse (GFM's autolinks), 256 KiB of prose 0.3 s.
    const paragraph = (n: number) => 'a word.\n'.repeat(n);
    expect(markdownLimitProblem(`# T\n\n${paragraph(paragraphLines)}\n${paragraph(paragraphLines)}`)).toBeUndefined();
    expect(markdownLimitProblem(`# T\n\n${paragraph(paragraphLines + 1)}`)).toMatch(
      /^line 1003 makes a paragraph of 1001 lines without a blank line, over the limit of 1000/,
    );
    expect(
      markdownLimitProblem(`# T\n\n${paragraph(paragraphLines)}\`\`\`\n${paragraph(10)}\`\`\`\n${paragraph(10)}`),
    ).toBeUndefined();
    expect(markdownLimitProblem(`# T\n\n${paragraph(paragraphLines)}| a | b |\n${paragraph(1)}`)).toMatch(
      /^line 1004 makes a paragraph of 1001 lines/,
    );
    // Each item of a tight list, and each heading, is a block of its own.
    expect(markdownLimitProblem(`# T\n\n${'- an item\n'.repeat(900)}${paragraph(900)}`)).toBeUndefined();
    expect(markdownLimitProblem(`# T\n\n${'1. an item\n'.repeat(900)}${paragraph(900)}`)).toBeUndefined();
    expect(markdownLimitProblem(`# T\n${'## H\nline\n'.repeat(700)}`)).toBeUndefined();
    expect(() => checkMarkdownText(`# T\n\n${paragraph(8_000 - 4)}`, undefined, undefined, 'long.md')).toThrow(
      /long\.md is refused before it is checked: line 1003 makes a paragraph of 1001 lines/,
    );
  });

  it('markup characters, "[" and "|": at each limit passes, one more is refused; fenced code is not counted', () => {
    expect(markdownLimitProblem(withProse('<'.repeat(markupChars)))).toBeUndefined();
    expect(markdownLimitProblem(withProse('<'.repeat(markupChars + 1)))).toMatch(/to 20001, over the limit of 20000/);
    expect(markdownLimitProblem(withProse('[a](b)'.repeat(linkOpeners)))).toBeUndefined();
    expect(markdownLimitProblem(withProse('[a](b)'.repeat(linkOpeners + 1)))).toMatch(/"\[" .* to 2001, over/);
    expect(markdownLimitProblem(withProse('| a |\n'.repeat(pipes / 2)))).toBeUndefined();
    expect(markdownLimitProblem(withProse(`${'| a |\n'.repeat(pipes / 2)}|`))).toMatch(/"\|" .* to 6001, over/);
    expect(markdownLimitProblem(withProse(`\`\`\`text\n${'<|'.repeat(markupChars)}\n\`\`\``))).toBeUndefined();
  });
});

describe('word count of long text', () => {
  it('is the same when a paragraph is longer than what is segmented at once', () => {
    const paragraph = `${'word, another word; 東京 and more.\n'.repeat(MARKDOWN_LIMITS.paragraphLines)}`;
    const words = new Intl.Segmenter('en', { granularity: 'word' });
    // Counted line by line (a line break always ends a word): segmented whole, the text takes minutes.
    const line = 'word, another word; 東京 and more.';
    const expected = MARKDOWN_LIMITS.paragraphLines * [...words.segment(line)].filter((s) => s.isWordLike).length;
    expect(checkMarkdownText(`# T\n\n${paragraph}`).summary.word_count).toBe(expected + 1);
  });
});
