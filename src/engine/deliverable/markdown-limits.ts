import { InvalidInputError } from '../../core/errors.js';

/**
 * Bounds checked on the raw text before a Markdown deliverable is parsed. The parser's cost grows with
 * nesting (a 3 000-level nested list did not finish in minutes; 20 000 `>` or 5 000 `*` overflowed the
 * stack), with size (1 MiB of prose took over 20 s on a loaded 2-core box) and with list items times
 * lines (micromark copies its whole event list each time a list item ends: 40 KB of `- - - text` lines
 * took minutes), so a pathological or huge document is refused in one linear pass instead. Real
 * documents stay far inside every bound.
 */
export const MARKDOWN_LIMITS = {
  /** Bytes of a Markdown deliverable. */
  bytes: 256 * 1024,
  /** `>` markers at the start of one line (blockquote depth). */
  quoteDepth: 32,
  /** Columns of leading whitespace on one line (list nesting is indentation). */
  indentColumns: 96,
  /** Unclosed `[` at any point (nested link text). */
  bracketDepth: 32,
  /** One run of `*` or `_` (emphasis delimiters) outside a thematic break. */
  delimiterRun: 64,
  /** List markers (`-`, `*`, `+`, `1.`, `1)`) opening one line: `- - - text` nests a list per marker. */
  lineLists: 8,
  /** List items in the whole document (each marker of `- - text` opens one). */
  listItems: 1000,
  /** List items times lines: what the parser's cost grows with (a long document has room for fewer items). */
  listItemLines: 2_000_000,
  /** Lines: each costs the parser events however short it is (`x` lines filling the byte limit took seconds). */
  lines: 8_000,
  /**
   * Lines of one paragraph (consecutive non-blank lines outside fenced code, table rows aside: `|` is
   * bounded on its own). GFM's autolink pass grows faster than the paragraph: 8 000 short lines in one
   * paragraph took 2.5 s to parse where 256 KiB of ordinary prose takes 0.3 s.
   */
  paragraphLines: 1_000,
  /**
   * Characters that may start inline markup (`<`, `&`, `|`, `[`, `]`, `!`, `` ` ``, `\`, `~`, `*`, `_`)
   * outside fenced code: the parser tries a construct at each (a file of `<` or `|` took seconds).
   */
  markupChars: 20_000,
  /** `[` outside fenced code: each is a link the parser resolves against all before it (`[a]` repeated took minutes). */
  linkOpeners: 2_000,
  /** `|` outside fenced code: table cells, the costliest construct per character (a 13 000-row table took seconds). */
  pipes: 6_000,
} as const;

/** See MARKDOWN_LIMITS.markupChars. */
const MARKUP_CHARS = new Set(['<', '&', '|', '[', ']', '!', '`', '\\', '~', '*', '_']);

/** One container marker: a `>` (spaces optional) or a list marker (a space or the line end after it). */
const CONTAINER_MARKER = />[ \t]*|([-*+]|\d{1,9}[.)])(?:[ \t]+|$)/y;
/** `- - -`, `* * *`, `___`: a horizontal rule, not three list markers. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** The opening (and closing) line of a fenced code block, whose lines are not Markdown structure. */
/** An ATX heading's line. */
const HEADING = /^[ \t]{0,3}#{1,6}(?:[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;

interface LineNesting {
  /** Containers the line opens: lists and blockquotes. */
  levels: number;
  /** Lists among them. */
  lists: number;
}

/** The lists and blockquotes a line opens, after its indentation. */
function lineNesting(line: string): LineNesting {
  if (THEMATIC_BREAK.test(line)) return { levels: 0, lists: 0 };
  const marker = new RegExp(CONTAINER_MARKER);
  marker.lastIndex = line.length - line.trimStart().length;
  let levels = 0;
  let lists = 0;
  for (let m = marker.exec(line); m !== null && m[0] !== ''; m = marker.exec(line)) {
    if (m[1] !== undefined) lists++;
    levels++;
  }
  return { levels, lists };
}

/** The first bound `text` exceeds, as a message with its line, or undefined when it is within all of them. */
export function markdownLimitProblem(text: string): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MARKDOWN_LIMITS.bytes)
    return `it is ${bytes} bytes, over the ${MARKDOWN_LIMITS.bytes}-byte limit of a Markdown deliverable; split it or link to the detail`;
  let brackets = 0;
  let listItems = 0;
  let markup = 0;
  let linkOpeners = 0;
  let pipes = 0;
  let fence: string | undefined;
  let paragraphLines = 0;
  const lines = text.split('\n');
  if (lines.length > MARKDOWN_LIMITS.lines)
    return `it has ${lines.length} lines, over the limit of ${MARKDOWN_LIMITS.lines} for a Markdown deliverable (checking time grows with them); join short lines or split the document`;
  const maxListItems = Math.min(MARKDOWN_LIMITS.listItems, Math.floor(MARKDOWN_LIMITS.listItemLines / lines.length));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const at = `line ${i + 1}`;
    const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
    const columns = [...indent].reduce((n, c) => n + (c === '\t' ? 4 : 1), 0);
    if (columns > MARKDOWN_LIMITS.indentColumns)
      return `${at} is indented ${columns} columns, over the ${MARKDOWN_LIMITS.indentColumns}-column limit (nesting that deep is not a readable document)`;
    const quotes = /^(?:[ \t]*>)*/.exec(line)?.[0].split('>').length ?? 1;
    if (quotes - 1 > MARKDOWN_LIMITS.quoteDepth)
      return `${at} nests ${quotes - 1} blockquotes, over the limit of ${MARKDOWN_LIMITS.quoteDepth}`;
    // Lines of a fenced code block (YAML, diffs) are not lists, whatever they start with.
    const opening = FENCE.exec(line)?.[1];
    const inFence = fence !== undefined;
    if (
      inFence &&
      opening !== undefined &&
      opening[0] === fence?.[0] &&
      opening.length >= (fence?.length ?? 0) &&
      line.trim() === opening
    )
      fence = undefined;
    else if (!inFence && opening !== undefined) fence = opening;
    const nesting = inFence || opening !== undefined ? undefined : lineNesting(line);
    if (nesting && nesting.lists > MARKDOWN_LIMITS.lineLists)
      return `${at} opens ${nesting.lists} nested lists, over the limit of ${MARKDOWN_LIMITS.lineLists} on one line`;
    if (nesting && nesting.levels > MARKDOWN_LIMITS.quoteDepth)
      return `${at} opens ${nesting.levels} nested lists and blockquotes, over the limit of ${MARKDOWN_LIMITS.quoteDepth}`;
    listItems += nesting?.lists ?? 0;
    if (listItems > maxListItems)
      return `${at} brings the list items to ${listItems}, over the limit of ${maxListItems} for a document of ${lines.length} lines (checking slows down with items times lines); merge items or split the document`;
    if (!inFence && opening === undefined) {
      for (let j = 0; j < line.length; j++) {
        const c = line[j]!;
        if (!MARKUP_CHARS.has(c)) continue;
        markup++;
        if (c === '[') linkOpeners++;
        else if (c === '|') pipes++;
      }
      if (pipes > MARKDOWN_LIMITS.pipes)
        return `${at} brings the "|" outside code blocks to ${pipes}, over the limit of ${MARKDOWN_LIMITS.pipes} (table cells are what the checker parses slowest); split long tables, or put the text in a code block`;
      if (linkOpeners > MARKDOWN_LIMITS.linkOpeners)
        return `${at} brings the "[" outside code blocks to ${linkOpeners}, over the limit of ${MARKDOWN_LIMITS.linkOpeners} (each is a link the checker resolves); put long lists of links or brackets in a code block, or split the document`;
      if (markup > MARKDOWN_LIMITS.markupChars)
        return `${at} brings the markup characters outside code blocks (${[...MARKUP_CHARS].join(' ')}) to ${markup}, over the limit of ${MARKDOWN_LIMITS.markupChars} (the checker tries a construct at each); put such text in a code block, or split the document`;
    }
    const thematicBreak = /^[ \t]*([*_])(?:[ \t]*\1)+[ \t]*$/.test(line);
    let run = 0;
    let runChar = '';
    for (let j = 0; j < line.length; j++) {
      const c = line[j];
      if (c === '\\') {
        j++;
        run = 0;
        continue;
      }
      if (c === '[') brackets++;
      else if (c === ']') brackets = Math.max(0, brackets - 1);
      if (brackets > MARKDOWN_LIMITS.bracketDepth)
        return `${at} opens ${brackets} nested "[", over the limit of ${MARKDOWN_LIMITS.bracketDepth}`;
      run = (c === '*' || c === '_') && (c === runChar || run === 0) ? run + 1 : c === '*' || c === '_' ? 1 : 0;
      runChar = run > 0 ? (c ?? '') : '';
      if (run > MARKDOWN_LIMITS.delimiterRun && !thematicBreak)
        return `${at} has a run of over ${MARKDOWN_LIMITS.delimiterRun} "${c}", over the limit for emphasis markers`;
    }
    // Link text does not span a blank line: unclosed brackets of a paragraph end with it.
    if (line.trim() === '') brackets = 0;
    if (line.trim() === '' || inFence || opening !== undefined) paragraphLines = 0;
    // A list item or a heading starts a block of its own: a tight list of many items is not one paragraph.
    else if ((nesting?.lists ?? 0) > 0 || HEADING.test(line)) paragraphLines = 1;
    else if (!line.includes('|')) paragraphLines++;
    if (paragraphLines > MARKDOWN_LIMITS.paragraphLines)
      return `${at} makes a paragraph of ${paragraphLines} lines without a blank line, over the limit of ${MARKDOWN_LIMITS.paragraphLines} (checking time grows faster than a paragraph's lines); separate paragraphs with blank lines, or put the text in a code block`;
  }
  return undefined;
}

/** Refuse Markdown over the bounds, before any parsing. */
export function assertMarkdownWithinLimits(text: string, file: string): void {
  const problem = markdownLimitProblem(text);
  if (problem) throw new InvalidInputError(`${file} is refused before it is checked: ${problem}`);
}
