/**
 * Building blocks for writing Markdown that always passes the documentation standards, whatever text
 * the codebase puts into it (paths with backticks, table cells with pipes, code containing fences).
 */

/** Inline code that survives backticks inside: the fence is one backtick longer than the longest run. */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Plain text for the middle of a line, with the characters that could start inline markup there escaped
 * (emphasis, code, links, HTML, strikethrough, table cells) and line breaks folded into spaces.
 */
export function escapeText(text: string): string {
  return text
    .replace(/[\\`*_[\]<>~|]/g, (c) => `\\${c}`)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A fenced code block; the fence is longer than any backtick run in the body, so the body cannot close it. */
export function fenced(language: string, body: string): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${body.replace(/\n+$/, '')}\n${fence}`;
}

/** A GFM table; `|` inside a cell is escaped (GitHub honours that inside code spans too). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

export function bulletList(items: readonly string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

export function numberedList(items: readonly string[]): string {
  return items.map((item, i) => `${i + 1}. ${item}`).join('\n');
}

/** 12345 → "12,345": digits grouped so large counts read at a glance. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 file", "3 files". */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : nouns}`;
}

/** The verb form agreeing with a count: `agree(n, 'imports', 'import')`. */
export function agree(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** A folder of the codebase as Markdown: `src/`, or "the root folder" for `.`. */
export function folderRef(path: string): string {
  return path === '.' ? 'the root folder' : code(`${path}/`);
}

/** Mermaid node labels are quoted; a quote inside becomes its entity. */
export const label = (text: string) => `"${text.replace(/"/g, '#quot;')}"`;
