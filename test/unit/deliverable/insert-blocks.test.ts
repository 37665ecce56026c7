import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { analyseMarkdown, insertBlocks } from 'fed/agent';
import { packageRoot, parseMarkdown } from 'fed/testing';
import { FIXTURES_DIR } from '../../helpers/fixture-process.js';

// The parser, counted: inserting must parse the inserted blocks only, or the agent gains nothing.
vi.mock('../../../src/engine/deliverable/parse-markdown.js', async (original) => {
  const real = await original<typeof import('../../../src/engine/deliverable/parse-markdown.js')>();
  return { ...real, parseMarkdown: vi.fn(real.parseMarkdown) };
});
const parses = vi.mocked(parseMarkdown);

/** Documents of every shape fed meets: the rules' fixtures (good and bad), skills, and fed's own pages. */
const DOCUMENTS = [
  ...readdirSync(join(FIXTURES_DIR, 'deliverables')).map((name) => join(FIXTURES_DIR, 'deliverables', name)),
  ...readdirSync(join(FIXTURES_DIR, 'federation-0.1.0/.fed/skills')).map((name) =>
    join(FIXTURES_DIR, 'federation-0.1.0/.fed/skills', name),
  ),
  join(packageRoot(), 'README.md'),
  join(packageRoot(), 'docs/dashboard.md'),
  join(packageRoot(), 'docs/delivery.md'),
].map((path) => ({ name: path.slice(packageRoot().length + 1), text: readFileSync(path, 'utf8') }));

/** Blocks to insert, each starting with an ATX heading and ending in something a heading closes. */
const BLOCKS = {
  'a table of contents': '## Contents\n\n- [Where the code lives](#where-the-code-lives)\n- [Next steps](#next-steps)',
  'a loose list with a nested one': '## Steps\n\n- one\n\n  - nested *one*\n\n- two `code` and a <span>tag</span>',
  'a table, a quote and a lazy line': '### Figures\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\nlazy continuation',
  'a repeated title and a URL': '## Next steps\n\nSee www.example.com and https://example.com/a_b_c.\n\n## Next steps',
  'line endings of every kind': '## Endings\r\n\r\nline one\r\nline two\rline three\n\n- an item',
  'a fenced block inside a list': '## Code\n\n- item\n\n  ```ts\n  const a = 1;\n  ```',
};

/** The offset of every top-level ATX heading of `text` but the first (where a table of contents goes, and after). */
function headingOffsets(text: string): number[] {
  return analyseMarkdown(text)
    .tree.children.filter(
      (node) => node.type === 'heading' && /^#{1,6}(?:[ \t\r\n]|$)/.test(text.slice(node.position!.start.offset!)),
    )
    .map((node) => node.position!.start.offset!)
    .filter((offset) => offset > 0);
}

/** A small seeded generator (mulberry32): the same documents on every run. */
function randomFrom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(choices: readonly T[]): T => choices[Math.floor(next() * choices.length)]!;
}

/** Inline content of every kind, and Markdown blocks of every kind to make documents of. */
const INLINE = [
  'plain words',
  '*emphasis*',
  '`code`',
  '[a link](#next-steps)',
  'www.example.com',
  '<b>html</b>',
  '[^1]',
  'a\\_b',
];
const COMMON_BLOCKS = [
  (pick: ReturnType<typeof randomFrom>) => `${pick(['#', '##', '###'])} ${pick(INLINE)} ${pick(INLINE)}`,
  (pick: ReturnType<typeof randomFrom>) => `${pick(INLINE)} ${pick(INLINE)}.\n${pick(INLINE)} again.`,
  (pick: ReturnType<typeof randomFrom>) =>
    `${pick(['-', '1.'])} ${pick(INLINE)}\n${pick(['', '\n'])}  - nested ${pick(INLINE)}`,
  (pick: ReturnType<typeof randomFrom>) => `> ${pick(INLINE)}\n${pick(['lazy line', '> more'])}`,
  () => '```ts\nconst a = 1;\n```',
  () => '    indented code',
  () => '| a | b |\n|---|---|\n| 1 | 2 |',
  () => '<div>\nhtml block\n</div>',
  (pick: ReturnType<typeof randomFrom>) => `${pick(INLINE)}\n${pick(['---', '==='])}`,
  () => '***',
];
/** Rarer blocks: definitions (insertBlocks then parses the new text whole), fenced code and HTML left open (they run on). */
const RARE_BLOCKS = [
  () => '[next]: https://example.com',
  () => '[^1]: a footnote',
  () => '```\nan unclosed fence',
  () => '<!-- an unclosed comment',
];

function randomDocument(pick: ReturnType<typeof randomFrom>, blocks: number): string {
  // Half the blocks under a heading of their own: each is a place to insert before.
  const parts = Array.from({ length: blocks }, () => {
    const block = pick(pick([...Array<typeof COMMON_BLOCKS>(15).fill(COMMON_BLOCKS), RARE_BLOCKS]))(pick);
    return pick([true, false]) ? `## ${pick(INLINE)}\n\n${block}` : block;
  });
  return `# Title\n\n${parts.map((part, i) => (i === 0 ? part : `${pick(['\n\n', '\n'])}${part}`)).join('')}\n`;
}

function splice(text: string, at: number, blocks: string): string {
  return `${text.slice(0, at)}${blocks}\n\n${text.slice(at)}`;
}

describe('inserting blocks into an analysed document', () => {
  beforeEach(() => parses.mockClear());

  it.each(DOCUMENTS)('is what parsing the new text gives, before each heading of $name', ({ text }) => {
    const doc = analyseMarkdown(text);
    const definitions = doc.tree.children.some((node) => node.type === 'definition');
    for (const at of headingOffsets(text))
      for (const [shape, blocks] of Object.entries(BLOCKS)) {
        parses.mockClear();
        const inserted = insertBlocks(doc, at, blocks);
        // The inserted blocks are parsed, or (where the document holds a definition) the new text whole.
        const parsed = parses.mock.calls.map(([parsedText]) => parsedText);
        expect(parsed, `${shape} at ${at}`).toEqual([definitions ? splice(text, at, blocks) : blocks]);
        expect(inserted, `${shape} at ${at}`).toEqual(analyseMarkdown(splice(text, at, blocks)));
      }
    expect(analyseMarkdown(text), 'the document it was given is unchanged').toEqual(doc);
  });

  it('is what parsing the new text gives, for 300 generated documents and blocks', () => {
    const pick = randomFrom(53);
    let spliced = 0;
    let tried = 0;
    for (let n = 0; n < 300; n++) {
      const text = randomDocument(pick, 3 + (n % 6));
      const doc = analyseMarkdown(text);
      for (const at of headingOffsets(text)) {
        // Ending as a writer might: trailing spaces, a line ending of either kind, or nothing.
        const blocks = `## ${pick(INLINE)}\n\n${randomDocument(pick, 1 + (n % 3))
          .slice('# Title\n\n'.length)
          .trimEnd()}${pick(['', '', '  ', '\n', '\r\n', '\n\n'])}`;
        parses.mockClear();
        const inserted = insertBlocks(doc, at, blocks);
        tried++;
        if (parses.mock.calls.length === 1 && parses.mock.calls[0]![0] === blocks) spliced++;
        expect(inserted, JSON.stringify({ text, at, blocks })).toEqual(analyseMarkdown(splice(text, at, blocks)));
      }
    }
    // About half the insertions take the splice (425 of 885), or this would test a whole parse against itself.
    expect(spliced / tried).toBeGreaterThan(0.4);
  });

  it('parses the new text whole where the blocks run on, end in a carriage return, define, or start otherwise', () => {
    const { text } = DOCUMENTS.find((d) => d.name.endsWith('good.md'))!;
    const doc = analyseMarkdown(text);
    const [at] = headingOffsets(text);
    for (const blocks of [
      '## Code\n\n```ts\nconst a = 1;',
      '## Raw\n\n<!-- an HTML comment runs on',
      'A paragraph first\n\n## Then a heading',
      'Setext heading\n--------------',
      '## Defined\n\n[ref]: https://example.com',
      // Its carriage return and the blank line after it would join into one line ending.
      '## Ends in a carriage return\r',
    ]) {
      parses.mockClear();
      const inserted = insertBlocks(doc, at!, blocks);
      expect(
        parses.mock.calls.map(([parsed]) => parsed),
        blocks,
      ).toEqual([blocks, splice(text, at!, blocks)]);
      expect(inserted, blocks).toEqual(analyseMarkdown(splice(text, at!, blocks)));
    }
  });

  it('parses the new text whole where no top-level ATX heading starts at the offset', () => {
    const text = '# Title\n\nA summary.\n\n- a list\n\n#setext heading\n---\n\n## Next steps\n\nSee above.\n';
    const doc = analyseMarkdown(text);
    const offsets = ['- a list', '#setext', 'Next steps', 'See above'].map((start) => text.indexOf(start));
    for (const at of offsets) {
      const blocks = '## Contents\n\n- [Next steps](#next-steps)';
      parses.mockClear();
      const inserted = insertBlocks(doc, at, blocks);
      expect(parses.mock.calls.map(([parsed]) => parsed)).toEqual([splice(text, at, blocks)]);
      expect(inserted).toEqual(analyseMarkdown(splice(text, at, blocks)));
    }
  });
});
