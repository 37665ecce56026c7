import { declarationComment } from './doc-comments.js';

/**
 * The public API of a source file — what it exports, with each declaration's signature — read line by
 * line: TypeScript/JavaScript `export function|class|const|interface|type|enum …` and `export { … }`
 * lists; Python's top-level `def` and `class` (not `_private`), narrowed to `__all__` when the module
 * declares it; Go's exported (capitalised) functions, methods, types, variables and constants. A light
 * parse, not a compiler's: a signature is the declaration's head, joined over the lines its parameters
 * take, up to where its body starts.
 */
export interface ApiEntry {
  name: string;
  /** `function`, `class`, `interface`, `type`, `const`, `def`, `func`, `method`, `re-export`… */
  kind: string;
  signature: string;
  /** 1-based line of the declaration. */
  line: number;
  /** The first sentence of its doc comment, when it has one. */
  doc: string | null;
}

const MAX_SIGNATURE = 140;
const MAX_SIGNATURE_LINES = 8;

const TS_DECLARATION =
  /^export\s+(?:declare\s+)?(default\s+)?(?:async\s+)?(?:abstract\s+)?(function\*?|class|interface|type|enum|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/;
const TS_LIST = /^export\s+(type\s+)?\{([^}]*)\}\s*(?:from\s+['"]([^'"]+)['"])?/;
const TS_STAR = /^export\s+\*\s+(?:as\s+([\w$]+)\s+)?from\s+['"]([^'"]+)['"]/;
const TS_DEFAULT = /^export\s+default\s+(?!(?:async\s+)?(?:function|class)\s+[A-Za-z_$])/;

/**
 * The head of a declaration from line `index` on: joined over the lines its brackets span, up to where
 * its body starts — `{`, or with `stopAtAssignment` an `=` (unless an arrow function's parameters follow).
 */
function signatureFrom(lines: readonly string[], index: number, stopAtAssignment: boolean): string {
  let text = '';
  let depth = 0;
  for (let i = index; i < lines.length && i < index + MAX_SIGNATURE_LINES; i++) {
    const line = lines[i]!.replace(/\s+\/\/.*$/, '').trim();
    for (let c = 0; c < line.length; c++) {
      const char = line[c]!;
      if (char === '(' || char === '[') depth++;
      else if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
      else if (depth === 0 && char === '{') return shorten(/=>\s*$/.test(text) ? `${text} {…}` : text);
      else if (
        depth === 0 &&
        stopAtAssignment &&
        char === '=' &&
        !/[=!<>]$/.test(text) &&
        !'=>'.includes(line[c + 1] ?? '')
      ) {
        // `= (a) =>` or `= async (a) =>`: an arrow function, whose parameters belong to the signature.
        if (!/^\s*(async\s*)?(\(|[A-Za-z_$][\w$]*\s*=>)/.test(line.slice(c + 1))) return shorten(text);
      }
      text += char;
      // An arrow function's signature ends at its arrow: the body is not part of it.
      if (stopAtAssignment && depth === 0 && text.endsWith('=>')) return shorten(text);
    }
    if (depth === 0 && !/[(,=:|&]$|=>$/.test(text)) break;
    text += ' ';
  }
  return shorten(text);
}

function shorten(text: string): string {
  const flat = text
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .replace(/,\)/g, ')')
    .replace(/[\s;:,]+$/, '')
    .trim();
  return flat.length > MAX_SIGNATURE ? `${flat.slice(0, MAX_SIGNATURE - 1).trimEnd()}…` : flat;
}

function scriptExports(lines: readonly string[]): ApiEntry[] {
  const entries: ApiEntry[] = [];
  lines.forEach((line, i) => {
    const doc = () => declarationComment(lines, i, 'TypeScript');
    const declared = TS_DECLARATION.exec(line);
    if (declared) {
      const kind = declared[2]!.replace('*', '');
      const stopAtAssignment = ['const', 'let', 'var', 'type'].includes(kind);
      const signature = signatureFrom(lines, i, stopAtAssignment).replace(/^export\s+(declare\s+)?/, '');
      entries.push({ name: declared[1] ? 'default' : declared[3]!, kind, signature, line: i + 1, doc: doc() });
      return;
    }
    const star = TS_STAR.exec(line);
    if (star) {
      entries.push({
        name: star[1] ?? '*',
        kind: 're-export',
        signature: `everything from ${star[2]}`,
        line: i + 1,
        doc: null,
      });
      return;
    }
    const list = TS_LIST.exec(line);
    if (list) {
      for (const part of list[2]!.split(',')) {
        const [local, exported] = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/);
        if (!local) continue;
        const name = exported ?? local;
        entries.push({
          name,
          kind: list[3] ? 're-export' : 'export',
          signature: list[3] ? `${local} from ${list[3]}` : local,
          line: i + 1,
          doc: null,
        });
      }
      return;
    }
    if (TS_DEFAULT.test(line))
      entries.push({ name: 'default', kind: 'default', signature: shorten(line), line: i + 1, doc: doc() });
  });
  return entries;
}

const PY_DECLARATION = /^(?:async\s+)?(def|class)\s+([A-Za-z]\w*)/;

function pythonExports(lines: readonly string[]): ApiEntry[] {
  const all = /^__all__\s*=\s*[[(]([^\])]*)/m.exec(lines.join('\n'));
  const listed = all ? new Set([...all[1]!.matchAll(/['"]([\w.]+)['"]/g)].map((m) => m[1]!)) : null;
  const entries: ApiEntry[] = [];
  lines.forEach((line, i) => {
    const declared = PY_DECLARATION.exec(line);
    if (!declared || (listed ? !listed.has(declared[2]!) : declared[2]!.startsWith('_'))) return;
    let signature = '';
    let last = i;
    for (; last < lines.length && last < i + MAX_SIGNATURE_LINES; last++) {
      signature += ` ${lines[last]!.trim()}`;
      if (/:\s*$/.test(lines[last]!)) break;
    }
    entries.push({
      name: declared[2]!,
      kind: declared[1]!,
      signature: shorten(signature.replace(/:\s*$/, '')),
      line: i + 1,
      // The docstring follows the signature's last line.
      doc: declarationComment(lines, last, 'Python'),
    });
  });
  return entries;
}

const GO_FUNC = /^func\s+(?:\(\s*\w*\s*\*?\s*([A-Z]\w*)[^)]*\)\s*)?([A-Z]\w*)\s*[([]/;
const GO_RECEIVER = /^func\s+\(/;
const GO_SPEC = /^(type|var|const)\s+([A-Z]\w*)/;
const GO_GROUP = /^(var|const|type)\s+\($/;

function goExports(lines: readonly string[]): ApiEntry[] {
  const entries: ApiEntry[] = [];
  let group: string | null = null;
  lines.forEach((line, i) => {
    if (group !== null) {
      if (line.startsWith(')')) group = null;
      else {
        const member = /^\t([A-Z]\w*)\b/.exec(line);
        if (member)
          entries.push({
            name: member[1]!,
            kind: group,
            signature: shorten(`${group} ${line.trim()}`),
            line: i + 1,
            doc: declarationComment(lines, i, 'Go'),
          });
      }
      return;
    }
    const opened = GO_GROUP.exec(line);
    if (opened) {
      group = opened[1]!;
      return;
    }
    const func = GO_FUNC.exec(line);
    if (func && (!GO_RECEIVER.test(line) || func[1])) {
      entries.push({
        name: func[1] ? `${func[1]}.${func[2]!}` : func[2]!,
        kind: func[1] ? 'method' : 'func',
        signature: signatureFrom(lines, i, false),
        line: i + 1,
        doc: declarationComment(lines, i, 'Go'),
      });
      return;
    }
    const spec = GO_SPEC.exec(line);
    if (spec)
      entries.push({
        name: spec[2]!,
        kind: spec[1]!,
        signature: signatureFrom(lines, i, spec[1] !== 'type'),
        line: i + 1,
        doc: declarationComment(lines, i, 'Go'),
      });
  });
  return entries;
}

const READERS: Record<string, (lines: readonly string[]) => ApiEntry[]> = {
  TypeScript: scriptExports,
  JavaScript: scriptExports,
  Python: pythonExports,
  Go: goExports,
};

/** What a file in `language` exports; empty for languages the survey does not read exports of. */
export function exportsOf(text: string, language: string): ApiEntry[] {
  return READERS[language]?.(text.split('\n')) ?? [];
}
