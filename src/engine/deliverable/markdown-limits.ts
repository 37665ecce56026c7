import { InvalidInputError } from '../../core/errors.js';

/**
 * Bounds checked on the raw text before a Markdown deliverable is parsed. The parser's cost grows with
 * nesting (a 3 000-level nested list did not finish in minutes; 20 000 `>` or 5 000 `*` overflowed the
 * stack) and with size (1 MiB of prose took over 20 s on a loaded 2-core box), so a pathological or huge
 * document is refused in one linear pass instead. Real documents stay far inside every bound.
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
} as const;

/** The first bound `text` exceeds, as a message with its line, or undefined when it is within all of them. */
export function markdownLimitProblem(text: string): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MARKDOWN_LIMITS.bytes)
    return `it is ${bytes} bytes, over the ${MARKDOWN_LIMITS.bytes}-byte limit of a Markdown deliverable; split it or link to the detail`;
  let brackets = 0;
  const lines = text.split('\n');
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
  }
  return undefined;
}

/** Refuse Markdown over the bounds, before any parsing. */
export function assertMarkdownWithinLimits(text: string, file: string): void {
  const problem = markdownLimitProblem(text);
  if (problem) throw new InvalidInputError(`${file} is refused before it is checked: ${problem}`);
}
