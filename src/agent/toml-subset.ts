/**
 * Just enough TOML to read the manifests a survey cares about (pyproject.toml, Cargo.toml): tables,
 * arrays of tables, and keys whose values are strings, arrays of strings, numbers or booleans. Inline
 * tables and multi-line strings are skipped (their keys read as null). Not a general TOML parser: a value
 * it cannot read is null rather than an error, since a survey reports what it can.
 */
export type TomlValue = string | string[] | number | boolean | null;
export type TomlTable = Record<string, TomlValue>;

export interface TomlDocument {
  /** `''` is the root table; `[tool.poetry]` is `tool.poetry`. */
  tables: Record<string, TomlTable>;
  /** `[[bin]]` entries, in order, by table name. */
  arrays: Record<string, TomlTable[]>;
}

/** A bare, 'literal' or "basic" string; basic-string escapes are JSON's (TOML-only ones stay as written). */
function unquote(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith("'") && trimmed.endsWith("'")) return trimmed.slice(1, -1);
  if (!(trimmed.startsWith('"') && trimmed.endsWith('"'))) return trimmed;
  try {
    return JSON.parse(trimmed) as string;
  } catch {
    return trimmed.slice(1, -1);
  }
}

/** The value text up to an unquoted `#`. */
function withoutComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '#') return text.slice(0, i);
  }
  return text;
}

function stringItems(inner: string): string[] {
  const items: string[] = [];
  let quote: string | null = null;
  let current = '';
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') current += inner[++i] ?? '';
      else if (char === quote) {
        items.push(current);
        current = '';
        quote = null;
      } else current += char;
    } else if (char === '"' || char === "'") quote = char;
  }
  return items;
}

function parseValue(text: string): TomlValue {
  const value = text.trim();
  if (value.startsWith('"""') || value.startsWith("'''") || value.startsWith('{')) return null;
  if (value.startsWith('"') || value.startsWith("'")) return unquote(value);
  if (value.startsWith('[')) return stringItems(value.slice(1, value.lastIndexOf(']')));
  if (value === 'true' || value === 'false') return value === 'true';
  const number = Number(value.replace(/_/g, ''));
  return Number.isFinite(number) && value !== '' ? number : null;
}

const bracketBalance = (text: string) => [...text].reduce((n, c) => n + (c === '[' ? 1 : c === ']' ? -1 : 0), 0);

export function parseTomlSubset(text: string): TomlDocument {
  const doc: TomlDocument = { tables: { '': {} }, arrays: {} };
  let current: TomlTable = doc.tables['']!;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = withoutComment(lines[i] ?? '').trim();
    if (line === '') continue;
    if (line.startsWith('[[')) {
      const name = line.slice(2, line.indexOf(']]')).trim();
      current = {};
      (doc.arrays[name] ??= []).push(current);
      continue;
    }
    if (line.startsWith('[')) {
      const name = line.slice(1, line.indexOf(']')).split('.').map(unquote).join('.');
      current = doc.tables[name] ??= {};
      continue;
    }
    const equals = line.indexOf('=');
    if (equals === -1) continue;
    let value = line.slice(equals + 1);
    // An array may span lines; a multi-line string is skipped up to its closing quotes.
    if (value.trim().startsWith('[')) {
      while (bracketBalance(value) > 0 && i + 1 < lines.length) value += ` ${withoutComment(lines[++i] ?? '')}`;
    }
    const opener = value.trim().slice(0, 3);
    if ((opener === '"""' || opener === "'''") && value.trim().indexOf(opener, 3) === -1) {
      while (i + 1 < lines.length) if ((lines[++i] ?? '').includes(opener)) break;
    }
    current[unquote(line.slice(0, equals))] = parseValue(value);
  }
  return doc;
}
