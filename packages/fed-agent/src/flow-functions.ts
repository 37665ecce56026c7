/**
 * The functions a source file defines and the calls each makes, read line by line (no compiler): for
 * TypeScript/JavaScript `function f(`, `const f = (…) =>` and class methods, bodies by their braces; for
 * Python `def`/`class`, bodies by indentation; for Go `func f(` and `func (r T) M(`, bodies by braces.
 * Code outside every function (a script's top level) is one more function, `(top level)`. Calls are
 * `name(` and `receiver.name(`, with strings and comments blanked first. Also what the file imports,
 * by the local name it binds (`import { a as b } from './x'`, `from .x import y`, Go's package name).
 */
export interface CallSite {
  /** `x` in `x.name(`, else null. */
  receiver: string | null;
  name: string;
  /** 1-based. */
  line: number;
}

export interface FunctionDef {
  /** `name`, `Class.method` for a method, `(top level)` for the code outside every function. */
  name: string;
  /** The bare name calls use. */
  callName: string;
  /** The class or receiver type of a method, else null. */
  owner: string | null;
  /** 1-based lines of its head and its last line. */
  line: number;
  end: number;
  calls: CallSite[];
}

export interface Binding {
  /** The name the file uses. */
  local: string;
  /** The name in the imported module (`*` for a namespace or module import). */
  imported: string;
  specifier: string;
}

export const TOP_LEVEL = '(top level)';
/** The receiver of a method called on an expression (`new A().m(`, `a.b.m(`). */
export const EXPRESSION = '(expression)';

const NOT_CALLS = new Set(
  'if for while switch catch return function typeof await new super import require sizeof elif and or not print assert lambda yield func defer go make len cap append panic range with except in is del'.split(
    ' ',
  ),
);

/**
 * The text with string literals and comments blanked to spaces (line breaks kept, so lines and columns
 * stay where they were): their words and brackets are never read as code. Scanned once, so comments and
 * strings over several lines (JSDoc blocks, template literals, Python's triple quotes) are blanked too.
 */
function blank(text: string, python: boolean): string {
  // UTF-16 code units, as `text[i]` and indexOf count: an emoji is two of them, not one code point.
  const out = text.split('');
  let i = 0;
  const blankTo = (end: number) => {
    for (let k = i; k < end && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
    i = end;
  };
  while (i < text.length) {
    const char = text[i]!;
    const two = text.slice(i, i + 2);
    if ((python && char === '#') || (!python && two === '//')) {
      const end = text.indexOf('\n', i);
      blankTo(end === -1 ? text.length : end);
    } else if (!python && two === '/*') {
      const end = text.indexOf('*/', i + 2);
      blankTo(end === -1 ? text.length : end + 2);
    } else if (python && (text.startsWith('"""', i) || text.startsWith("'''", i))) {
      const end = text.indexOf(text.slice(i, i + 3), i + 3);
      blankTo(end === -1 ? text.length : end + 3);
    } else if (char === '"' || char === "'" || char === '`') {
      // A quote ends at the same quote; only a template literal (or Go's raw string) spans lines.
      let k = i + 1;
      while (k < text.length && text[k] !== char && (char === '`' || text[k] !== '\n')) k += text[k] === '\\' ? 2 : 1;
      blankTo(Math.min(k + 1, text.length));
    } else i++;
  }
  return out.join('');
}

const CALL = /(?<![\w$])(?:([A-Za-z_$][\w$]*)\s*\.\s*)?([A-Za-z_$][\w$]*)\s*\(/g;

function callsIn(code: readonly string[], from: number, to: number, skip: { line: number; name: string }): CallSite[] {
  const calls: CallSite[] = [];
  for (let i = from; i <= to && i < code.length; i++) {
    for (const match of code[i]!.matchAll(CALL)) {
      const name = match[2]!;
      if (NOT_CALLS.has(name) || (i === skip.line && name === skip.name && !match[1])) continue;
      // `f().name(` or `a.b.name(`: a method called on an expression whose name is not the receiver's.
      const onExpression = !match[1] && /\.\s*$/.test(code[i]!.slice(0, match.index));
      calls.push({ receiver: match[1] ?? (onExpression ? EXPRESSION : null), name, line: i + 1 });
    }
  }
  return calls;
}

/** The last line of a brace-delimited body starting on line `start`: where the brackets opened since it close again. */
function braceEnd(code: readonly string[], start: number): number {
  let depth = 0;
  let opened = false;
  for (let i = start; i < code.length; i++) {
    for (const char of code[i]!) {
      if (char === '{' || char === '(' || char === '[') {
        depth++;
        opened = true;
      } else if (char === '}' || char === ')' || char === ']') depth--;
    }
    const open = /(=>|[,(=])\s*$/.test(code[i]!);
    if (opened && depth <= 0 && !open) return i;
  }
  return code.length - 1;
}

const TS_FUNCTION = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/;
const TS_ARROW =
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/;
const TS_CLASS = /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/;
const TS_METHOD =
  /^\s+(?:(?:public|private|protected|static|async|readonly|override|get|set)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*$/;

function scriptFunctions(code: readonly string[]): FunctionDef[] {
  const defs: FunctionDef[] = [];
  let owner: { name: string; end: number } | null = null;
  for (let i = 0; i < code.length; i++) {
    const line = code[i]!;
    if (owner && i > owner.end) owner = null;
    const cls = TS_CLASS.exec(line);
    if (cls) {
      owner = { name: cls[1]!, end: braceEnd(code, i) };
      continue;
    }
    const method = owner ? TS_METHOD.exec(line) : null;
    const name = (TS_FUNCTION.exec(line) ?? TS_ARROW.exec(line))?.[1] ?? method?.[1];
    if (!name || NOT_CALLS.has(name) || (method && !/\{\s*$|\(\s*$|,\s*$/.test(line))) continue;
    const end = braceEnd(code, i);
    const inClass = owner && method ? owner.name : null;
    defs.push({
      name: inClass ? `${inClass}.${name}` : name,
      callName: name,
      owner: inClass,
      line: i + 1,
      end: end + 1,
      calls: callsIn(code, i, end, { line: i, name }),
    });
    i = end; // nested functions are part of their parent's body
  }
  return defs;
}

const PY_DEF = /^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/;

function pythonFunctions(code: readonly string[]): FunctionDef[] {
  const defs: FunctionDef[] = [];
  const classes: { name: string; indent: number }[] = [];
  for (let i = 0; i < code.length; i++) {
    const match = PY_DEF.exec(code[i]!);
    if (!match) continue;
    const indent = match[1]!.length;
    while (classes.length && classes.at(-1)!.indent >= indent) classes.pop();
    let end = i;
    for (let j = i + 1; j < code.length; j++) {
      if (code[j]!.trim() === '') continue;
      if (code[j]!.length - code[j]!.trimStart().length <= indent && !/^\s*[)\]]/.test(code[j]!)) break;
      end = j;
    }
    const name = match[3]!;
    if (match[2] === 'class') {
      classes.push({ name, indent });
      continue;
    }
    const owner = classes.at(-1)?.name ?? null;
    defs.push({
      name: owner ? `${owner}.${name}` : name,
      callName: name,
      owner,
      line: i + 1,
      end: end + 1,
      calls: callsIn(code, i, end, { line: i, name }),
    });
  }
  return defs;
}

const GO_FUNC = /^func\s+(?:\(\s*\w*\s*\*?\s*(\w+)[^)]*\)\s*)?(\w+)\s*[([]/;

function goFunctions(code: readonly string[]): FunctionDef[] {
  const defs: FunctionDef[] = [];
  for (let i = 0; i < code.length; i++) {
    const match = GO_FUNC.exec(code[i]!);
    if (!match) continue;
    const end = braceEnd(code, i);
    const owner = match[1] ?? null;
    defs.push({
      name: owner ? `${owner}.${match[2]!}` : match[2]!,
      callName: match[2]!,
      owner,
      line: i + 1,
      end: end + 1,
      calls: callsIn(code, i, end, { line: i, name: match[2]! }),
    });
    i = end;
  }
  return defs;
}

/** The functions of a file in `language`, with the code outside them as TOP_LEVEL when it calls anything. */
export function functionsOf(text: string, language: string): FunctionDef[] {
  const python = language === 'Python';
  const code = blank(text, python).split('\n');
  const defs = language === 'Go' ? goFunctions(code) : python ? pythonFunctions(code) : scriptFunctions(code);
  if (language === 'Go') return defs;
  const inside = new Set<number>();
  for (const def of defs) for (let l = def.line; l <= def.end; l++) inside.add(l - 1);
  const outside: CallSite[] = [];
  code.forEach((line, i) => {
    if (inside.has(i) || /^\s*(import|from|export\s+\{|export\s+\*)\b/.test(line)) return;
    outside.push(...callsIn(code, i, i, { line: -1, name: '' }));
  });
  if (outside.length)
    defs.push({
      name: TOP_LEVEL,
      callName: TOP_LEVEL,
      owner: null,
      line: outside[0]!.line,
      end: outside[0]!.line,
      calls: outside,
    });
  return defs;
}

/** What the file imports, by local name. */
export function bindingsOf(text: string, language: string): Binding[] {
  const bindings: Binding[] = [];
  if (language === 'Go') {
    for (const match of text.matchAll(/^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]+)"\s*$/gm))
      if (match[1] !== '_')
        bindings.push({ local: match[1] ?? match[2]!.split('/').pop()!, imported: '*', specifier: match[2]! });
    return bindings;
  }
  if (language === 'Python') {
    const joined = text.replace(/\(\s*([^)]*)\)/g, (m) => m.replace(/\s+/g, ' '));
    for (const match of joined.matchAll(/^from\s+(\S+)\s+import\s+\(?([^)\n]+)\)?/gm))
      for (const part of match[2]!.split(',')) {
        const [imported, local] = part.trim().split(/\s+as\s+/);
        if (imported) bindings.push({ local: local ?? imported, imported, specifier: match[1]! });
      }
    for (const match of joined.matchAll(/^import\s+([\w.]+)(?:\s+as\s+(\w+))?/gm))
      bindings.push({ local: match[2] ?? match[1]!.split('.')[0]!, imported: '*', specifier: match[1]! });
    return bindings;
  }
  const flat = text.replace(/\{[^{}]*\}/g, (m) => m.replace(/\s+/g, ' '));
  for (const match of flat.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?([^'"]*?)\s+from\s+['"]([^'"]+)['"]/gm)) {
    const clause = match[1]!;
    const specifier = match[2]!;
    // `export * from './x'`: everything `./x` exports, found there when a name is looked up.
    if (clause.trim() === '*') bindings.push({ local: '*', imported: '*', specifier });
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause);
    if (namespace) bindings.push({ local: namespace[1]!, imported: '*', specifier });
    const named = /\{([^}]*)\}/.exec(clause);
    for (const part of named?.[1]!.split(',') ?? []) {
      const [imported, local] = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/);
      if (imported) bindings.push({ local: local ?? imported, imported, specifier });
    }
    const fallback = /^([\w$]+)\s*(?:,|$)/.exec(clause.trim());
    if (fallback && !clause.trim().startsWith('{'))
      bindings.push({ local: fallback[1]!, imported: 'default', specifier });
  }
  return bindings;
}
