/**
 * Text fed did not write (a signal's subject, an agent's failure reason) shown on one line of a table,
 * a status line or a chat message: control characters (newlines, terminal escapes) and bidirectional
 * overrides would break or spoof the layout, so they are blanked; text longer than `max` characters is
 * cut, ending in `…`.
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
  const clean = text.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069]+/gu, ' ').trim();
  // By code points, so a cut never splits a surrogate pair.
  const chars = [...clean];
  return chars.length > max ? { line: `${chars.slice(0, max - 1).join('')}…`, cut: true } : { line: clean, cut: false };
}
