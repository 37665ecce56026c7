/** Plain-text tables and fields, for the CLI and for reports the library renders (no colours unless asked). */

/** Left-aligned columns separated by two spaces; the header row comes first. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  // A loop, not Math.max(...cells): spreading 100 000 rows overflows the call stack.
  const widths = header.map((title) => title.length);
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** `key: value` lines with the keys aligned. */
export function renderFields(fields: readonly (readonly [string, string])[]): string {
  const width = fields.reduce((max, [key]) => Math.max(max, key.length), 0);
  return fields.map(([key, value]) => `${`${key}:`.padEnd(width + 2)}${value}`).join('\n') + '\n';
}
