import { escapeControls } from './terminal-text.js';

/** How much of a signal's subject a one-line listing shows (`fed signal list`, `fed log`). */
export const SUBJECT_CHARS = 72;

/**
 * Text fed did not write (a signal's subject, an agent's failure reason) shown on one line of a table,
 * a status line or a chat message: line breaks and tabs would break the layout, so they are blanked;
 * other control characters (terminal escapes) and bidirectional overrides are escaped (escapeControls);
 * text longer than `max` characters is cut, ending in `…`.
 */
export function displayLine(text: string, max: number): string {
  return cutLine(text, max).line;
}

/** `displayLine`, and when it had to cut the text, where the whole of it is: `… (in full: fed monitor --json)`. */
export function displayLineWithPointer(text: string, max: number, fullTextAt: string): string {
  const { line, cut } = cutLine(text, max);
  return cut ? `${line} (in full: ${fullTextAt})` : line;
}

function cutLine(text: string, max: number): { line: string; cut: boolean } {
  const clean = escapeControls(text.replace(/[\t\n\v\f\r]+/g, ' ')).trim();
  // By code points, so a cut never splits a surrogate pair.
  const chars = [...clean];
  return chars.length > max ? { line: `${chars.slice(0, max - 1).join('')}…`, cut: true } : { line: clean, cut: false };
}
