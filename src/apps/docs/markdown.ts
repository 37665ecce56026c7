/** Small pieces of GitHub-flavoured Markdown for the generated reference pages (docs/reference/). */

/**
 * Text for a table cell: a `|` would end the cell, and `<file>` outside code would be taken for an HTML
 * tag and vanish on GitHub, so both are escaped; line breaks become spaces.
 */
export function cellText(text: string): string {
  return text
    .replaceAll('\\', '\\\\')
    .replaceAll('|', '\\|')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/\s*\n\s*/g, ' ');
}

/** Inline code for a table cell; a `|` inside it still needs its escape there. */
export function cellCode(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** A GFM table; cells are taken as they are (escape them first). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') + '\n';
}

/** The first line every generated page starts with, so no one edits one by hand. */
export function generatedNotice(source: string): string {
  return `<!-- Generated from ${source} by \`npm run docs\`; do not edit by hand (a test fails when this file is stale). -->\n`;
}
