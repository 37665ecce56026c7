import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Markdown as GitHub renders it (CommonMark + GFM tables, task lists, autolinks, strikethrough,
 * footnotes), parsed into an mdast tree with positions. Every deliverable check reads this tree — and
 * the source text only at a node's own position — never the raw text with patterns.
 */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/** Visit `node` and every node below it, depth first, in document order. */
export function visit(node: Nodes, callback: (node: Nodes) => void): void {
  callback(node);
  if ('children' in node) for (const child of node.children) visit(child, callback);
}

export interface PlainTextOptions {
  /** What inline code becomes; default its own text (GitHub keeps it in heading anchors). */
  inlineCode?: (value: string) => string;
}

/** The text a reader sees in `node`: markup dropped, link text kept, line breaks as spaces. */
export function plainText(node: Nodes, options: PlainTextOptions = {}): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'inlineCode') return options.inlineCode ? options.inlineCode(node.value) : node.value;
  if (node.type === 'break') return ' ';
  if (node.type === 'image') return node.alt ?? '';
  if ('children' in node) return node.children.map((child) => plainText(child, options)).join('');
  return '';
}

/** 1-based line where a node starts (nodes from the parser always have a position). */
export function lineOf(node: Nodes): number {
  return node.position?.start.line ?? 1;
}

/** The source text a node was parsed from. */
export function sourceOf(text: string, node: Nodes): string {
  return text.slice(node.position?.start.offset ?? 0, node.position?.end.offset ?? 0);
}
