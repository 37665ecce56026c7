/**
 * What a source file or a declaration says about itself in its comments: the first sentence of a file's
 * leading doc comment (a JSDoc block, a Python module docstring, Go's `// Package x …`), and of the
 * comment right above a declaration (or, in Python, the docstring right below it). Read from the text
 * only: a file with no such comment has no purpose to quote.
 */
const MAX_SENTENCE = 160;

/** The first sentence of comment text, its markers (`/**`, `*`, `//`, `#`, quotes) already stripped. */
export function firstSentence(text: string): string | null {
  const flat = text
    .replace(/\{@\w+\s+([^}]*)\}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat === '' || flat.startsWith('@')) return null;
  // A sentence ends at ". " before a capital letter, or at the end; "e.g. x" and "`a.b`" do not end one.
  const end = /[.!?](?=\s+[A-Z(`"“]|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  return sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE - 1).trimEnd()}…` : sentence;
}

const blockBody = (block: string) =>
  block
    .replace(/^\/\*\*?/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .filter((l) => !/^\s*@/.test(l))
    .join(' ');

/** The lines of `//` or `#` comments ending just above line `index` (0-based), markers stripped. */
function lineCommentsAbove(lines: readonly string[], index: number, marker: '//' | '#'): string | null {
  const taken: string[] = [];
  for (let i = index - 1; i >= 0 && lines[i]!.trim().startsWith(marker); i--)
    taken.unshift(lines[i]!.trim().slice(marker.length));
  return taken.length ? taken.join(' ') : null;
}

/** The JSDoc block ending just above line `index` (0-based), with only decorators or blank space between. */
function blockAbove(lines: readonly string[], index: number): string | null {
  let end = index - 1;
  while (end >= 0 && /^\s*@\w/.test(lines[end]!)) end--;
  if (end < 0 || !lines[end]!.trim().endsWith('*/')) return null;
  let start = end;
  while (start >= 0 && !lines[start]!.includes('/*')) start--;
  if (start < 0 || end - start > 60) return null;
  return blockBody(lines.slice(start, end + 1).join('\n'));
}

/** The first sentence of the comment documenting the declaration on line `index` (0-based). */
export function declarationComment(lines: readonly string[], index: number, language: string): string | null {
  if (language === 'Python') {
    const next = lines[index + 1]?.trim() ?? '';
    const quote = /^[rub]?("""|'''|"|')/i.exec(next)?.[1];
    if (!quote) return null;
    const body: string[] = [next.slice(next.indexOf(quote) + quote.length)];
    for (let i = index + 2; !body.at(-1)!.includes(quote) && i < lines.length && i < index + 40; i++)
      body.push(lines[i]!.trim());
    return firstSentence(body.join(' ').split(quote)[0]!);
  }
  const comment = blockAbove(lines, index) ?? lineCommentsAbove(lines, index, '//');
  return comment === null ? null : firstSentence(comment);
}

/** The first sentence of the file's own doc comment. */
export function fileComment(text: string, language: string): string | null {
  const lines = text.split('\n');
  if (language === 'Python') {
    const first = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#'));
    if (first === -1) return null;
    return declarationComment(lines, first - 1, language);
  }
  if (language === 'Go') {
    const pkg = lines.findIndex((l) => l.startsWith('package '));
    const comment = pkg === -1 ? null : lineCommentsAbove(lines, pkg, '//');
    return comment === null ? null : firstSentence(comment);
  }
  // TypeScript/JavaScript: the first JSDoc block at the left margin (fed puts it after the imports).
  const start = lines.findIndex((l) => l.startsWith('/**'));
  if (start !== -1) {
    const end = lines.findIndex((l, i) => i >= start && l.includes('*/'));
    if (end !== -1) return firstSentence(blockBody(lines.slice(start, end + 1).join('\n')));
  }
  const leading = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#!'));
  if (leading !== -1 && lines[leading]!.startsWith('//')) {
    let end = leading;
    while (end + 1 < lines.length && lines[end + 1]!.startsWith('//')) end++;
    return firstSentence(lineCommentsAbove(lines, end + 1, '//')!);
  }
  return null;
}
