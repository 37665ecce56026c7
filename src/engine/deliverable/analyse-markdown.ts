import type { Code, Heading, Nodes, Root } from 'mdast';
import type { DeliverableSummary } from '../../core/schema/deliverable-summary.js';
import { mermaidDeclaration, plantumlDeclaration } from './diagram-types.js';
import GithubSlugger from 'github-slugger';
import { lineOf, parseMarkdown, plainText, visit } from './parse-markdown.js';
import { segmenter } from './segmenters.js';

/** A Markdown document parsed once, with what both the rules and the summary need. */
export interface AnalysedMarkdown {
  text: string;
  tree: Root;
  /** Every heading, the title included, with its GitHub anchor. */
  headings: { node: Heading; level: number; title: string; anchor: string; line: number }[];
  codeBlocks: { node: Code; language: string | null; line: number }[];
  /** Words of prose (code blocks and HTML excluded). */
  wordCount: number;
  /** The last line of the file (a final newline ends it, it starts none), for violations about the whole document. */
  lastLine: number;
}

/** Node types whose text is not prose a reader counts as words. */
const NOT_PROSE = new Set(['code', 'html', 'definition']);

/**
 * What Intl.Segmenter is given at once. Iterating its segments slows with the length of the text (on
 * Node 20: 10 000 words in one text node 0.19 s, 40 000 words 2 s — a 256 KiB paragraph of `x` lines
 * took most of a minute), so a long text is segmented in pieces.
 */
const SEGMENTED_CHARS = 4096;

/**
 * `text` in pieces of at most SEGMENTED_CHARS, each cut after whitespace, where a word always ends, so
 * the words counted are the same; a stretch with no whitespace that long (no prose) is cut where it is.
 */
function* segmentPieces(text: string): Generator<string> {
  let at = 0;
  while (text.length - at > SEGMENTED_CHARS) {
    let end = at + SEGMENTED_CHARS;
    while (end > at && !/\s/.test(text[end - 1]!)) end--;
    if (end === at) end = at + SEGMENTED_CHARS;
    yield text.slice(at, end);
    at = end;
  }
  yield text.slice(at);
}

function countWords(tree: Root): number {
  let count = 0;
  const words = segmenter('word');
  const walk = (node: Nodes) => {
    if (NOT_PROSE.has(node.type)) return;
    if (node.type === 'text' || node.type === 'inlineCode') {
      for (const piece of segmentPieces(node.value))
        for (const segment of words.segment(piece)) if (segment.isWordLike) count++;
      return;
    }
    if ('children' in node) for (const child of node.children) walk(child);
  };
  walk(tree);
  return count;
}

export function analyseMarkdown(text: string): AnalysedMarkdown {
  const tree = parseMarkdown(text);
  return analyseTree(text, tree, countWords(tree));
}

/**
 * What the rules and the summary need of `tree`, parsed from `text`, whose prose has `wordCount` words
 * (counted by the caller: a tree spliced from analysed parts sums theirs, insert-blocks.ts).
 */
export function analyseTree(text: string, tree: Root, wordCount: number): AnalysedMarkdown {
  const headingNodes: Heading[] = [];
  const codeNodes: Code[] = [];
  visit(tree, (node) => {
    if (node.type === 'heading') headingNodes.push(node);
    else if (node.type === 'code') codeNodes.push(node);
  });
  const titles = headingNodes.map((node) => plainText(node).trim());
  // Anchors as GitHub makes them, repeats numbered in document order: `[Usage](#usage)` links depend on it.
  const slugger = new GithubSlugger();
  const anchors = titles.map((title) => slugger.slug(title));
  return {
    text,
    tree,
    headings: headingNodes.map((node, i) => ({
      node,
      level: node.depth,
      title: titles[i] ?? '',
      anchor: anchors[i] ?? '',
      line: lineOf(node),
    })),
    codeBlocks: codeNodes.map((node) => ({ node, language: node.lang ?? null, line: lineOf(node) })),
    wordCount,
    lastLine: Math.max(1, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)),
  };
}

function diagramOf(block: AnalysedMarkdown['codeBlocks'][number]): DeliverableSummary['diagrams'][number] | undefined {
  const language = block.language?.toLowerCase();
  if (language === 'mermaid') return { language, type: mermaidDeclaration(block.node.value), line: block.line };
  if (language === 'plantuml' || language === 'puml')
    return { language: 'plantuml', type: plantumlDeclaration(block.node.value), line: block.line };
  return undefined;
}

/** The structural summary (documented in src/core/schema/deliverable-summary.ts). */
export function summariseMarkdown(doc: AnalysedMarkdown, sizeBytes: number): DeliverableSummary {
  const titles = doc.headings.filter((h) => h.level === 1);
  return {
    format: 'markdown',
    title: titles.length === 1 ? (titles[0]?.title ?? null) : null,
    sections: doc.headings
      .filter((h) => h.level > 1)
      .map((h) => ({ level: h.level, title: h.title, anchor: h.anchor, line: h.line })),
    code_blocks: doc.codeBlocks.map((b) => ({ language: b.language, line: b.line })),
    diagrams: doc.codeBlocks.map(diagramOf).filter((d) => d !== undefined),
    word_count: doc.wordCount,
    size_bytes: sizeBytes,
  };
}
