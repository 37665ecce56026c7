import type { List, Nodes, Paragraph } from 'mdast';
import { closest } from '../../core/schema/unknown-keys.js';
import type { AnalysedMarkdown } from './analyse-markdown.js';
import { isMermaidDiagramType, MERMAID_DIAGRAM_TYPES, mermaidDeclaration } from './diagram-types.js';
import { lineOf, plainText, sourceOf, visit } from './parse-markdown.js';
import { segmenter } from './segmenters.js';

/**
 * The documentation standards `fed deliverable check` enforces (docs/design/spec.md §2.6), one rule each. The skill
 * `skills/documentation-standards.md` states the same rules for agents; keep the two in step.
 */
export const DOCUMENTATION_RULES = {
  title: 'exactly one level-1 heading, and it comes first',
  summary: 'the first block after the title is a summary paragraph of 2–3 sentences',
  'table-of-contents': 'a document over 500 words has a table of contents (a list of links to its sections)',
  'anchor-link': 'every link to a #anchor matches a heading',
  'atx-heading': 'headings are written with # (ATX), never underlined (setext)',
  'code-language': 'code blocks are fenced and tagged with a language',
  'list-marker': 'bullet lists use -, numbered lists use 1.',
  'link-style': 'links are inline [text](url), not reference-style [text][ref]',
  'mermaid-type': 'a Mermaid block starts with a known diagram type',
  'next-steps': 'a "Next steps" section',
} as const;
export type DocumentationRule = keyof typeof DOCUMENTATION_RULES;

/** Words above which a table of contents is expected (docs/design/spec.md §8). */
export const TOC_WORD_LIMIT = 500;
const SUMMARY_SENTENCES = { min: 2, max: 3 } as const;

export interface RuleViolation {
  line: number;
  rule: DocumentationRule;
  message: string;
}

type Rule = (doc: AnalysedMarkdown) => Omit<RuleViolation, 'rule'>[];

/**
 * Sentences of a paragraph. Line breaks inside a paragraph are spaces to a reader (the segmenter would
 * end a sentence at each), and inline code is not prose: `package.json` or `e.g.` in code must not split.
 */
function countSentences(paragraph: Paragraph): number {
  const text = plainText(paragraph, { inlineCode: () => 'code' })
    .replace(/\s+/g, ' ')
    .trim();
  let count = 0;
  for (const { segment } of segmenter('sentence').segment(text)) if (/[\p{L}\p{N}]/u.test(segment)) count++;
  return count;
}

const title: Rule = (doc) => {
  const titles = doc.headings.filter((h) => h.level === 1);
  const first = titles[0];
  if (!first)
    return [
      {
        line: 1,
        message: 'no title: start the document with one level-1 heading, e.g. "# Payments service architecture"',
      },
    ];
  const found: Omit<RuleViolation, 'rule'>[] = [];
  if (doc.tree.children[0] !== first.node) {
    found.push({
      line: first.line,
      message: `the title must be the first thing in the document; move what is above line ${first.line} below it`,
    });
  }
  for (const extra of titles.slice(1)) {
    found.push({
      line: extra.line,
      message: `a second level-1 heading ("${extra.title}"): a document has one title; make this a "## " section`,
    });
  }
  return found;
};

const summary: Rule = (doc) => {
  const titleIndex = doc.tree.children.findIndex((node) => node.type === 'heading' && node.depth === 1);
  const next = doc.tree.children[titleIndex + 1];
  const where = titleIndex === -1 ? 'at the start of the document' : 'right after the title';
  if (!next || next.type !== 'paragraph') {
    const line = next ? lineOf(next) : titleIndex === -1 ? 1 : doc.lastLine;
    return [
      {
        line,
        message: `no summary: write a paragraph of ${SUMMARY_SENTENCES.min}–${SUMMARY_SENTENCES.max} sentences ${where} saying what the document covers and concludes`,
      },
    ];
  }
  const count = countSentences(next);
  if (count >= SUMMARY_SENTENCES.min && count <= SUMMARY_SENTENCES.max) return [];
  return [
    {
      line: lineOf(next),
      message: `the summary has ${count} sentence${count === 1 ? '' : 's'}; it needs ${SUMMARY_SENTENCES.min}–${SUMMARY_SENTENCES.max}`,
    },
  ];
};

/** A list in which every item starts with a link to an anchor of this document. */
function isTableOfContents(list: List): boolean {
  return (
    list.children.length > 0 &&
    list.children.every((item) => {
      const first = item.children[0];
      const lead = first?.type === 'paragraph' ? first.children[0] : undefined;
      return lead?.type === 'link' && lead.url.startsWith('#');
    })
  );
}

const tableOfContents: Rule = (doc) => {
  if (doc.wordCount <= TOC_WORD_LIMIT) return [];
  let found = false;
  visit(doc.tree, (node) => {
    if (node.type === 'list' && isTableOfContents(node)) found = true;
  });
  if (found) return [];
  const firstSection = doc.headings.find((h) => h.level > 1);
  return [
    {
      line: firstSection?.line ?? 1,
      message: `${doc.wordCount} words (over ${TOC_WORD_LIMIT}) and no table of contents: add "## Contents" after the summary with a list of links to the sections, e.g. "- [Usage](#usage)"`,
    },
  ];
};

const anchorLink: Rule = (doc) => {
  const anchors = doc.headings.map((h) => h.anchor);
  const known = new Set(anchors);
  const found: Omit<RuleViolation, 'rule'>[] = [];
  visit(doc.tree, (node) => {
    if (node.type !== 'link' || !node.url.startsWith('#')) return;
    let target = node.url.slice(1);
    try {
      target = decodeURIComponent(target);
    } catch {
      // A malformed escape cannot match a heading either; report it as written.
    }
    if (known.has(target)) return;
    const suggestion = closest(target, anchors);
    const hint = suggestion
      ? `did you mean #${suggestion}?`
      : `headings here give ${
          anchors
            .slice(0, 8)
            .map((a) => `#${a}`)
            .join(', ') || 'no anchors'
        }`;
    found.push({
      line: lineOf(node),
      message: `link to #${target} matches no heading (anchors are the heading text lowercased, punctuation removed, spaces as -); ${hint}`,
    });
  });
  return found;
};

const atxHeading: Rule = (doc) =>
  doc.headings
    .filter((h) => !sourceOf(doc.text, h.node).trimStart().startsWith('#'))
    .map((h) => ({
      line: h.line,
      message: `setext heading "${h.title}" (underlined with ${h.level === 1 ? '=' : '-'}): write it as "${'#'.repeat(h.level)} ${h.title}"`,
    }));

const codeLanguage: Rule = (doc) =>
  doc.codeBlocks.flatMap((block) => {
    const opening = sourceOf(doc.text, block.node).trimStart();
    if (!opening.startsWith('```') && !opening.startsWith('~~~')) {
      return [{ line: block.line, message: 'indented code block: use a fenced block with a language tag, e.g. ```sh' }];
    }
    if (block.language === null)
      return [
        {
          line: block.line,
          message: 'code block without a language tag: name it after the fence, e.g. ```ts, ```sh, ```json or ```text',
        },
      ];
    return [];
  });

/** The marker a list item was written with, read from the source at the item's own position. */
function markerOf(text: string, item: Nodes): string {
  const source = sourceOf(text, item);
  let end = 0;
  while (end < source.length && source[end] !== ' ' && source[end] !== '\t' && source[end] !== '\n') end++;
  return source.slice(0, end);
}

const listMarker: Rule = (doc) => {
  const found: Omit<RuleViolation, 'rule'>[] = [];
  visit(doc.tree, (node) => {
    const item = node.type === 'list' ? node.children[0] : undefined;
    if (node.type !== 'list' || !item) return;
    const marker = markerOf(doc.text, item);
    const items = `${node.children.length} item${node.children.length === 1 ? '' : 's'}`;
    if (node.ordered && !marker.endsWith('.'))
      found.push({
        line: lineOf(node),
        message: `numbered list written with "${marker}" (${items}): use "1." style markers`,
      });
    if (!node.ordered && marker !== '-')
      found.push({ line: lineOf(node), message: `bullet list written with "${marker}" (${items}): use "-"` });
  });
  return found;
};

const linkStyle: Rule = (doc) => {
  const found: Omit<RuleViolation, 'rule'>[] = [];
  visit(doc.tree, (node) => {
    if (node.type === 'linkReference' || node.type === 'imageReference') {
      found.push({
        line: lineOf(node),
        message: `reference-style ${node.type === 'linkReference' ? 'link' : 'image'} "${sourceOf(doc.text, node)}": write it inline, [text](url)`,
      });
    }
  });
  return found;
};

const mermaidType: Rule = (doc) =>
  doc.codeBlocks
    .filter((b) => b.language?.toLowerCase() === 'mermaid')
    .flatMap((block) => {
      const declared = mermaidDeclaration(block.node.value);
      if (declared !== null && isMermaidDiagramType(declared)) return [];
      const what = declared === null ? 'is empty' : `starts with "${declared}", which is no Mermaid diagram type`;
      return [
        {
          line: block.line,
          message: `Mermaid block ${what}; start it with one of ${MERMAID_DIAGRAM_TYPES.slice(0, 7).join(', ')}, …`,
        },
      ];
    });

const nextSteps: Rule = (doc) =>
  doc.headings.some((h) => h.level > 1 && h.anchor.startsWith('next-steps'))
    ? []
    : [
        {
          line: doc.lastLine,
          message: 'no "Next steps" section: end the document with "## Next steps" saying what to do or read next',
        },
      ];

const RULES: Record<DocumentationRule, Rule> = {
  title,
  summary,
  'table-of-contents': tableOfContents,
  'anchor-link': anchorLink,
  'atx-heading': atxHeading,
  'code-language': codeLanguage,
  'list-marker': listMarker,
  'link-style': linkStyle,
  'mermaid-type': mermaidType,
  'next-steps': nextSteps,
};

/** Every violation of every rule, in line order (rules in the order above within a line). */
export function checkDocumentationRules(doc: AnalysedMarkdown): RuleViolation[] {
  const found = (Object.keys(RULES) as DocumentationRule[]).flatMap((rule) =>
    RULES[rule](doc).map((v) => ({ line: v.line, rule, message: v.message })),
  );
  return found.sort((a, b) => a.line - b.line);
}
