/** Parse JSON text and, when it is not JSON, say where (line and column) so a person can fix the file. */
export type JsonParseResult =
  { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

/** U+FEFF, which some editors put before UTF-8 text. */
const BYTE_ORDER_MARK = 0xfeff;

export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // Invisible in an editor, and V8 names it as an "unexpected token" it cannot show: said by name instead.
    if (text.charCodeAt(0) === BYTE_ORDER_MARK)
      return {
        ok: false,
        line: 1,
        column: 1,
        message: 'a byte-order mark (U+FEFF) at the start; save the file as UTF-8 without BOM',
      };
    const message = (error as Error).message;
    const position = errorPosition(message, text);
    const { line, column } = lineAndColumn(text, position);
    return {
      ok: false,
      line,
      column,
      message: message
        .replace(/ in JSON at position \d+.*$/s, '')
        .replace(/^(Unexpected token '[\s\S]'),[\s\S]*$/, '$1'),
    };
  }
}

/**
 * V8 reports "... at position N" for most errors and nothing for a truncated document. For an unexpected
 * token it instead quotes the text around it (`Unexpected token 'x', ..."<10 chars before>x<after>"...`),
 * so the position is recovered by finding that excerpt in the text.
 */
function errorPosition(message: string, text: string): number {
  const match = /at position (\d+)/.exec(message);
  if (match) return Number(match[1]);
  const token = /^Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*?)"(?:\.\.\.)? is not valid JSON$/.exec(message);
  if (token) {
    const [, char = '', leading, excerpt = ''] = token;
    const start = text.indexOf(excerpt);
    const offset = excerpt.indexOf(char, leading ? 10 : 0);
    if (start !== -1 && offset !== -1) return start + offset;
  }
  return text.length;
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

/**
 * `text` without the byte-order mark some editors (Windows') put before UTF-8 text, for a file people edit
 * that fed accepts with one: it is not part of the JSON, which `parseJsonText` refuses with it.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

/** Stable, human-diffable JSON for files fed writes. */
export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
