import type { Nodes, Root, RootContent } from 'mdast';
import { analyseMarkdown, analyseTree, type AnalysedMarkdown } from './analyse-markdown.js';
import { visit } from './parse-markdown.js';

/**
 * Markdown `blocks` inserted into an analysed document before the top-level ATX heading that starts at
 * offset `at`, with a blank line after them: the new document analysed without parsing `doc` again. The
 * built-in agent drafts its document, learns from the draft whether it needs a table of contents and
 * what the table links to, then inserts the table: parsing was half of the agent's own CPU (its process
 * less a bare Node start), and parsing the whole document a second time a quarter of it.
 *
 * The result equals analyseMarkdown of the new text (test/unit/deliverable/insert-blocks.test.ts) when:
 * - a top-level ATX heading starts at `at` in `doc`, and `blocks` starts with one too: the text before
 *   `at` is followed by the same kind of line in both documents, which closes whatever it left open (a
 *   heading continues no list, quote or paragraph), so that text parses as before; and the heading at
 *   `at` closes whatever `blocks` leaves open in the same way, so the text after parses as before;
 * - `blocks` does not end in fenced code or HTML at its top level, which would run on into that heading,
 *   nor in a carriage return, which the blank line after it would join into one line ending;
 * - neither holds a link or footnote definition, which the other's text could refer to.
 * Where one does not hold, the new text is parsed whole. `doc` is left as it was.
 */
export function insertBlocks(doc: AnalysedMarkdown, at: number, blocks: string): AnalysedMarkdown {
  const text = `${doc.text.slice(0, at)}${blocks}\n\n${doc.text.slice(at)}`;
  const index = doc.tree.children.findIndex((node) => node.position?.start.offset === at);
  if (index === -1 || !isAtxHeadingAt(doc.tree.children[index]!, doc.text, at) || hasDefinitions(doc.tree))
    return analyseMarkdown(text);
  const inserted = analyseMarkdown(blocks);
  const [first] = inserted.tree.children;
  const last = inserted.tree.children.at(-1);
  if (
    first === undefined ||
    !isAtxHeadingAt(first, blocks, 0) ||
    blocks.endsWith('\r') ||
    last?.type === 'code' ||
    last?.type === 'html' ||
    hasDefinitions(inserted.tree)
  )
    return analyseMarkdown(text);

  const tree = structuredClone(doc.tree);
  const after = tree.children.slice(index);
  const atLine = after[0]!.position!.start.line;
  const addedLines = lineBreaks(blocks) + 2;
  shiftPositions(inserted.tree.children, at, atLine - 1);
  shiftPositions(after, blocks.length + 2, addedLines);
  tree.children = [...tree.children.slice(0, index), ...inserted.tree.children, ...after];
  if (tree.position) tree.position.end = shifted(tree.position.end, blocks.length + 2, addedLines);
  return analyseTree(text, tree, doc.wordCount + inserted.wordCount);
}

/** An ATX heading's opening: 1 to 6 `#`, then a space, a tab or the line's end (a setext heading's text may start with `#`). */
const ATX_OPENING = /^#{1,6}(?:[ \t\r\n]|$)/;

/** Whether `node` is an ATX heading at the start of a line, at offset `at` of `text`. */
function isAtxHeadingAt(node: RootContent, text: string, at: number): boolean {
  return node.type === 'heading' && node.position?.start.column === 1 && ATX_OPENING.test(text.slice(at, at + 8));
}

function hasDefinitions(tree: Root): boolean {
  let found = false;
  visit(tree, (node) => {
    if (node.type === 'definition' || node.type === 'footnoteDefinition') found = true;
  });
  return found;
}

/** Line endings in `text`, as CommonMark counts them: `\r\n`, `\n` or a lone `\r`. */
function lineBreaks(text: string): number {
  return text.match(/\r\n?|\n/g)?.length ?? 0;
}

/** A point of a node's position (unist's Point). */
type Point = NonNullable<Nodes['position']>['start'];

function shifted(point: Point, offset: number, lines: number): Point {
  return {
    line: point.line + lines,
    column: point.column,
    ...(point.offset === undefined ? {} : { offset: point.offset + offset }),
  };
}

/** Moves every node under `nodes` down by `lines` lines and `offset` characters (whole lines: columns stay). */
function shiftPositions(nodes: readonly RootContent[], offset: number, lines: number): void {
  const move = (node: Nodes) => {
    if (!node.position) return;
    node.position = {
      start: shifted(node.position.start, offset, lines),
      end: shifted(node.position.end, offset, lines),
    };
  };
  for (const node of nodes) visit(node, move);
}
