import { initSync, parse } from 'es-module-lexer';

/**
 * The modules a source file imports, as written (`./a.js`, `node:fs`, `pkg.sub`, `github.com/x/y`).
 *
 * TypeScript/JavaScript: `es-module-lexer` (a real lexer for ES module syntax, fast enough for thousands of
 * files, and it copes with TypeScript's type syntax) for static, re-exported and dynamic imports, plus
 * CommonJS `require('…')` calls, which it does not report. JSX is not ES syntax and the lexer refuses it, so
 * a `.jsx`/`.tsx` file (or any it refuses) falls back to matching import statements line by line. The
 * TypeScript compiler's own `preProcessFile` would read JSX too, but loading it costs about half a second
 * and it is only a development dependency of fed.
 *
 * Python and Go: their import statements are line-oriented and fully specified, and no maintained npm
 * parser for them exists short of a whole tree-sitter WASM grammar, so they are read directly here.
 */
initSync();

const REQUIRE = /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const FALLBACK_PATTERNS = [
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+)?from\s*['"]([^'"\n]+)['"]/g,
  /\bimport\s*['"]([^'"\n]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
];

export function findScriptImports(text: string): string[] {
  const found = new Set<string>();
  try {
    const [imports] = parse(text);
    for (const entry of imports) if (entry.n) found.add(entry.n);
  } catch {
    for (const pattern of FALLBACK_PATTERNS)
      for (const match of text.matchAll(pattern)) if (match[1]) found.add(match[1]);
  }
  if (text.includes('require')) for (const match of text.matchAll(REQUIRE)) if (match[1]) found.add(match[1]);
  return [...found];
}

/**
 * `import a.b as c, d` → `a.b`, `d`; `from .x import y, z` → `.x.y`, `.x.z` — the names after `import`
 * may be modules or attributes, so each is kept as a candidate and resolution decides (the resolver
 * falls back to `.x` itself). Parenthesised and backslash-continued lists are joined first.
 */
export function findPythonImports(text: string): string[] {
  const found = new Set<string>();
  if (!text.includes('import')) return [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Most lines are not imports: tell them apart before stripping comments.
    const start = lines[i]!.trimStart();
    if (!start.startsWith('import ') && !start.startsWith('from ')) continue;
    let line = start.replace(/#.*$/, '').trim();
    while ((line.endsWith('\\') || (line.includes('(') && !line.includes(')'))) && i + 1 < lines.length) {
      line = `${line.replace(/\\$/, '')} ${lines[++i]!.replace(/#.*$/, '').trim()}`;
    }
    const names = (list: string) =>
      list
        .replace(/[()]/g, '')
        .split(',')
        .map((n) =>
          n
            .trim()
            .split(/\s+as\s+/)[0]!
            .trim(),
        )
        .filter((n) => /^[\w.]+$/.test(n));
    const from = /^from\s+([\w.]+)\s+import\s+(.+)$/.exec(line);
    if (from) {
      const base = from[1]!;
      const members = names(from[2]!);
      if (members.length === 0) found.add(base); // `from x import *`
      for (const member of members) found.add(base.endsWith('.') ? `${base}${member}` : `${base}.${member}`);
      continue;
    }
    const plain = /^import\s+(.+)$/.exec(line);
    if (plain) for (const name of names(plain[1]!)) found.add(name);
  }
  return [...found];
}

/** `import "fmt"`, `import x "a/b"`, and `import ( … )` blocks; the imports end where the first declaration starts. */
export function findGoImports(text: string): string[] {
  const found = new Set<string>();
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line.startsWith(')')) inBlock = false;
      else {
        const path = /"([^"]+)"/.exec(line)?.[1];
        if (path) found.add(path);
      }
    } else if (/^import\s*\($/.test(line)) inBlock = true;
    else if (line.startsWith('import ')) {
      const path = /"([^"]+)"/.exec(line)?.[1];
      if (path) found.add(path);
    } else if (/^(func|type|var|const)\b/.test(line)) break;
  }
  return [...found];
}
