import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDeliverable } from 'fed';
import { checkMarkdownText } from 'fed/testing';
import { FIXTURES_DIR } from '../../helpers/fixture-process.js';

/**
 * What each documentation rule tells the writer — the line, and a message that says what is wrong and how
 * to fix it — and where each rule's bounds are. check-deliverable.test.ts holds which rules fire.
 */

const messagesOf = (text: string) => checkMarkdownText(text).violations.map((v) => `${v.line} ${v.rule}: ${v.message}`);
const SUMMARY = 'What this covers. What it concludes.';
const END = '## Next steps\n\nRead on.';
const doc = (...parts: string[]) => [...parts].join('\n\n');

describe('each bad fixture: the line, the rule and the message', () => {
  it.each([
    [
      'broken-anchor.md',
      '17 anchor-link: link to #where-code-lives matches no heading (anchors are the heading text lowercased, punctuation removed, spaces as -); did you mean #where-the-code-lives?',
    ],
    [
      'duplicate-title.md',
      '15 title: a second level-1 heading ("Appendix"): a document has one title; make this a "## " section',
    ],
    [
      'fence-without-language.md',
      '11 code-language: code block without a language tag: name it after the fence, e.g. ```ts, ```sh, ```json or ```text',
    ],
    ['indented-code.md', '13 code-language: indented code block: use a fenced block with a language tag, e.g. ```sh'],
    [
      'long-without-toc.md',
      '6 table-of-contents: 543 words (over 500) and no table of contents: add "## Contents" after the summary with a list of links to the sections, e.g. "- [Usage](#usage)"',
    ],
    [
      'mermaid-unknown.md',
      '17 mermaid-type: Mermaid block starts with "flowchat", which is no Mermaid diagram type; start it with one of flowchart, graph, sequenceDiagram, classDiagram, stateDiagram, stateDiagram-v2, erDiagram, …',
    ],
    [
      'no-next-steps.md',
      '17 next-steps: no "Next steps" section: end the document with "## Next steps" saying what to do or read next',
    ],
    [
      'no-title.md',
      '1 title: no title: start the document with one level-1 heading, e.g. "# Payments service architecture"',
    ],
    ['ordered-paren.md', '17 list-marker: numbered list written with "1)" (2 items): use "1." style markers'],
    [
      'reference-link.md',
      '17 link-style: reference-style link "[invoice builder][builder]": write it inline, [text](url)',
    ],
    [
      'setext-heading.md',
      '6 atx-heading: setext heading "Where the code lives" (underlined with -): write it as "## Where the code lives"',
    ],
    ['star-list.md', '8 list-marker: bullet list written with "*" (2 items): use "-"'],
    ['summary-four-sentences.md', '3 summary: the summary has 4 sentences; it needs 2–3'],
    [
      'summary-missing.md',
      '3 summary: no summary: write a paragraph of 2–3 sentences right after the title saying what the document covers and concludes',
    ],
    ['summary-one-sentence.md', '3 summary: the summary has 1 sentence; it needs 2–3'],
    [
      'title-not-first.md',
      '3 title: the title must be the first thing in the document; move what is above line 3 below it',
    ],
  ])('%s', (name, expected) => {
    const { violations } = checkDeliverable(join(FIXTURES_DIR, 'deliverables', name));
    expect(violations.map((v) => `${v.line} ${v.rule}: ${v.message}`)).toEqual([expected]);
  });
});

describe('the rules at their edges', () => {
  it('a summary of 2 or 3 sentences passes; line breaks and inline code do not split one', () => {
    expect(messagesOf(doc('# T', SUMMARY, END))).toEqual([]);
    expect(messagesOf(doc('# T', 'One. Two. Three.', END))).toEqual([]);
    expect(messagesOf(doc('# T', 'It reads `e.g. package.json` and\nthe rest. Then it ends.', END))).toEqual([]);
    expect(messagesOf(doc('# T', 'One. Two. Three. Four.', END))).toEqual([
      '3 summary: the summary has 4 sentences; it needs 2–3',
    ]);
    // Punctuation alone is no sentence.
    expect(messagesOf(doc('# T', 'One sentence. …', END))).toEqual([
      '3 summary: the summary has 1 sentence; it needs 2–3',
    ]);
  });

  it('no summary: after the title, at its end, or at the start of a document with no title', () => {
    expect(messagesOf('# T')).toContain(
      '1 summary: no summary: write a paragraph of 2–3 sentences right after the title saying what the document covers and concludes',
    );
    expect(messagesOf(doc('## Section', END))).toContain(
      '1 summary: no summary: write a paragraph of 2–3 sentences at the start of the document saying what the document covers and concludes',
    );
    expect(messagesOf(doc('# T', '- a list', END))).toContain(
      '3 summary: no summary: write a paragraph of 2–3 sentences right after the title saying what the document covers and concludes',
    );
  });

  it('a setext title is told with "=", and as "# "', () => {
    expect(messagesOf(`Title\n=====\n\n${SUMMARY}\n\n${END}`)).toEqual([
      '1 atx-heading: setext heading "Title" (underlined with =): write it as "# Title"',
    ]);
  });

  it('a link to no anchor suggests the closest, or lists the anchors there are; a malformed escape is shown as written', () => {
    expect(messagesOf(doc('# T', SUMMARY, '[x](#zzzzzzzzzzzz)', END))).toEqual([
      '5 anchor-link: link to #zzzzzzzzzzzz matches no heading (anchors are the heading text lowercased, punctuation removed, spaces as -); headings here give #t, #next-steps',
    ]);
    expect(messagesOf(doc('# T', SUMMARY, '[x](#next%20steps)', END))).toEqual([
      '5 anchor-link: link to #next steps matches no heading (anchors are the heading text lowercased, punctuation removed, spaces as -); did you mean #next-steps?',
    ]);
    expect(messagesOf(doc('# T', SUMMARY, '[x](#%E0%A4%A)', END))[0]).toMatch(
      /^5 anchor-link: link to #%E0%A4%A matches/,
    );
    expect(messagesOf(doc('# T', SUMMARY, '[x](#next-steps) [y](https://example.com/#nowhere)', END))).toEqual([]);
  });

  it('the first nine anchors at most are listed', () => {
    const sections = Array.from({ length: 10 }, (_, i) => `## S${i}`);
    const [message] = messagesOf(doc('# T', SUMMARY, '[x](#qqqqqqqqqqqqqqqq)', ...sections, END));
    expect(message).toMatch(/headings here give #t, #s0, #s1, #s2, #s3, #s4, #s5, #s6$/);
  });

  it('a reference-style image; a one-item list in the singular', () => {
    expect(messagesOf(doc('# T', SUMMARY, '![logo][l]\n\n[l]: logo.png', '+ one', END))).toEqual([
      '5 link-style: reference-style image "![logo][l]": write it inline, [text](url)',
      '9 list-marker: bullet list written with "+" (1 item): use "-"',
    ]);
    expect(messagesOf(doc('# T', SUMMARY, '1. one\n2. two', '- a\n- b', END))).toEqual([]);
  });

  it('an empty Mermaid block; a tilde fence is a fence', () => {
    expect(messagesOf(doc('# T', SUMMARY, '```mermaid\n```', '~~~ts\nx\n~~~', END))).toEqual([
      '5 mermaid-type: Mermaid block is empty; start it with one of flowchart, graph, sequenceDiagram, classDiagram, stateDiagram, stateDiagram-v2, erDiagram, …',
    ]);
  });

  it('a table of contents is needed over 500 words, and is a list whose every item links to an anchor', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'word').join(' ');
    const body = (n: number, ...extra: string[]) => doc('# T', SUMMARY, ...extra, '## Body', words(n), END);
    const counted = (text: string) => checkMarkdownText(text).summary.word_count;
    const base = counted(body(0));
    expect(messagesOf(body(500 - base))).toEqual([]);
    expect(messagesOf(body(501 - base))).toEqual([
      '5 table-of-contents: 501 words (over 500) and no table of contents: add "## Contents" after the summary with a list of links to the sections, e.g. "- [Usage](#usage)"',
    ]);
    expect(messagesOf(body(600, '- [Body](#body)\n- [Next](#next-steps)'))).toEqual([]);
    // At the first section.
    expect(messagesOf(body(600, '- [Body](#body)\n- [Out](https://example.com)'))[0]).toMatch(/^8 table-of-contents: /);
    expect(messagesOf(body(600, '- [Body](#body)\n- see [Next](#next-steps)'))[0]).toMatch(/^8 table-of-contents: /);
    // No section at all: line 1.
    expect(messagesOf(doc('# T', SUMMARY, words(600)))).toContain(
      `1 table-of-contents: ${600 + counted(doc('# T', SUMMARY))} words (over 500) and no table of contents: add "## Contents" after the summary with a list of links to the sections, e.g. "- [Usage](#usage)"`,
    );
  });

  it('"Next steps" is a section below the title, whatever follows its name; violations come in line order', () => {
    expect(messagesOf(doc('# T', SUMMARY, '## Next steps for operators', 'x'))).toEqual([]);
    expect(messagesOf(doc('# Next steps', SUMMARY))).toEqual([
      '3 next-steps: no "Next steps" section: end the document with "## Next steps" saying what to do or read next',
    ]);
    expect(messagesOf(doc('intro', '# T', '* a', SUMMARY)).map((m) => m.split(':')[0])).toEqual([
      '3 title',
      '5 summary',
      '5 list-marker',
      '7 next-steps',
    ]);
  });
});
