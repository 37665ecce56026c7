import { join, posix } from 'node:path';
import { bindingsOf, functionsOf, TOP_LEVEL, type Binding, type FunctionDef } from './flow-functions.js';
import { readAnalysedText, resolveRelative, type Survey } from 'fed/survey';
import { stem } from './mission-plan.js';
import type { TopicAnswer } from './mission-search.js';

/**
 * How a "how does X work" question is answered call by call: from the files the mission search ranked
 * (and the import chain through them), the files that import them and those they import — at most
 * MAX_FILES, found along the import graph — are read for their functions and calls; each call is
 * resolved by name (a function of the same file or Go package, an imported name, a method on `this`/
 * `self`, or a method name only one file defines). From the functions nothing else calls (entry points
 * first), the chain of calls carrying the most relevance — function names matching the question's words,
 * then bodies mentioning them — is followed, and ends at the last function that matches. Deterministic
 * and bounded: no compiler, no network.
 */
export interface FlowStep {
  function: string;
  file: string;
  /** 1-based line of its definition, and that line trimmed. */
  line: number;
  excerpt: string;
  /** Where it calls the next step (null for the last). */
  call: { line: number; text: string } | null;
}

const MAX_FILES = 60;
const MAX_DEPTH = 12;
/** Steps shown: a chain a reader can follow at a glance. */
const MAX_STEPS = 10;
const BACKWARD_HOPS = 4;
const MAX_RANKED = 12;
const MAX_EXCERPT = 140;
const STEP_COST = 0.5;

interface Node {
  def: FunctionDef;
  file: string;
  lines: string[];
  key: string;
}

const keyOf = (file: string, def: FunctionDef) => `${file}#${def.name}`;

/** The camelCase and snake_case parts of a name, lowercased. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.toLowerCase());
}

/** The files to read: the ranked ones, those leading to them (up to an entry point) and those they import. */
function filesToRead(survey: Survey, answer: TopicAnswer): string[] {
  const code = new Set(survey.files.filter((f) => !f.test && f.language?.kind === 'code').map((f) => f.path));
  const seeds = [...(answer.chain?.files ?? []), ...answer.files.map((f) => f.path)].filter((p) => code.has(p));
  const chosen = [...new Set(seeds)].slice(0, MAX_RANKED);
  const backward = new Map<string, string[]>();
  const forward = new Map<string, string[]>();
  for (const { from, to } of survey.graph.links) {
    (backward.get(to) ?? backward.set(to, []).get(to)!).push(from);
    (forward.get(from) ?? forward.set(from, []).get(from)!).push(to);
  }
  let frontier = [...chosen];
  for (let hop = 0; hop < BACKWARD_HOPS && chosen.length < MAX_FILES; hop++) {
    const next = frontier.flatMap((f) => backward.get(f) ?? []).filter((f) => !chosen.includes(f));
    for (const f of [...new Set(next)].sort()) if (chosen.length < MAX_FILES) chosen.push(f);
    frontier = next;
  }
  for (const f of [...chosen])
    for (const t of forward.get(f) ?? []) if (!chosen.includes(t) && chosen.length < MAX_FILES) chosen.push(t);
  // A Go package is its folder: a function may live in any of its files.
  for (const f of [...chosen].filter((p) => p.endsWith('.go'))) {
    const dir = posix.dirname(f);
    for (const sibling of [...code].filter((p) => p.endsWith('.go') && posix.dirname(p) === dir).sort())
      if (!chosen.includes(sibling) && chosen.length < MAX_FILES) chosen.push(sibling);
  }
  return chosen;
}

/** The file an import specifier of `from` names, among the files the import graph links `from` to. */
function targetOf(
  from: string,
  binding: Binding,
  survey: Survey,
  linked: readonly string[],
  paths: ReadonlySet<string>,
): string[] {
  const spec = binding.specifier;
  if (from.endsWith('.go'))
    return linked.filter((t) => spec.endsWith(`/${posix.dirname(t)}`) || spec === posix.dirname(t));
  if (from.endsWith('.py')) {
    const dots = /^\.*/.exec(spec)![0].length;
    const parts = spec.slice(dots).split('.').filter(Boolean);
    const base = dots ? posix.join(posix.dirname(from), ...Array<string>(dots - 1).fill('..')) : '';
    const stems = [parts, [...parts, binding.imported]].map((p) => posix.join(base, ...p));
    return linked.filter((t) => {
      const module = t.replace(/(\/__init__)?\.py$/, '');
      return stems.some((s) => module === s || module.endsWith(`/${s}`));
    });
  }
  if (spec.startsWith('.')) {
    const file = resolveRelative(from, spec, paths);
    return file ? [file] : [];
  }
  const pkg = survey.packages.list.find((p) => p.name === spec || spec.startsWith(`${p.name}/`));
  return pkg ? linked.filter((t) => t.startsWith(`${pkg.path}/`)) : [];
}

/**
 * One way through the code. Where a function on the way calls several functions that lead to what the
 * question asks about (`if branch != "" { fromBranch() } else { fresh() }; setup()`), each is a path of
 * its own: the default one (taken when no option is given) first, then those taken on every path, then
 * the optional ones.
 */
export interface FlowPath {
  steps: FlowStep[];
  /** How the first function that branches reaches this path's next step; null when nothing branches. */
  when: { kind: 'default' | 'always' | 'optional'; condition: string | null } | null;
}

/** The first path only: the steps of the way the question is answered first. */
export function traceFlow(survey: Survey, answer: TopicAnswer): FlowStep[] | null {
  return traceFlowPaths(survey, answer)?.[0]?.steps ?? null;
}

export function traceFlowPaths(survey: Survey, answer: TopicAnswer): FlowPath[] | null {
  if (!answer.topic.flow || !answer.answered) return null;
  const files = filesToRead(survey, answer);
  const paths = new Set(survey.files.map((f) => f.path));
  const languageOf = new Map(survey.files.map((f) => [f.path, f.language?.name ?? '']));
  const nodes = new Map<string, Node>();
  const byFile = new Map<string, { defs: FunctionDef[]; bindings: Binding[]; lines: string[] }>();
  for (const file of files) {
    const text = readAnalysedText(join(survey.codebase, file));
    if (text === undefined) continue;
    const language = languageOf.get(file) ?? '';
    const defs = functionsOf(text, language);
    const lines = text.split('\n');
    byFile.set(file, { defs, bindings: bindingsOf(text, language), lines });
    for (const def of defs) nodes.set(keyOf(file, def), { def, file, lines, key: keyOf(file, def) });
  }
  const linksFrom = new Map<string, string[]>();
  for (const { from, to } of survey.graph.links) (linksFrom.get(from) ?? linksFrom.set(from, []).get(from)!).push(to);
  const defsNamed = new Map<string, Node[]>();
  for (const node of nodes.values())
    (defsNamed.get(node.def.callName) ?? defsNamed.set(node.def.callName, []).get(node.def.callName)!).push(node);

  /** A function `name` defined in `file`, or exported from it by a re-export. */
  const definedIn = (file: string, name: string, seen = new Set<string>()): Node | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const own = byFile.get(file);
    if (!own) return undefined;
    const def = own.defs.find((d) => d.callName === name && d.owner === null);
    if (def) return nodes.get(keyOf(file, def));
    const linked = linksFrom.get(file) ?? [];
    for (const b of own.bindings.filter((b) => b.local === name || b.local === '*'))
      for (const target of targetOf(file, b, survey, linked, paths)) {
        const found = definedIn(target, b.local === '*' ? name : b.imported, seen);
        if (found) return found;
      }
    return undefined;
  };
  const goPackage = (dir: string, name: string) =>
    [...nodes.values()].find((n) => posix.dirname(n.file) === dir && n.def.callName === name && n.file.endsWith('.go'));

  const resolve = (node: Node, call: FunctionDef['calls'][number]): Node | undefined => {
    const file = byFile.get(node.file)!;
    const linked = linksFrom.get(node.file) ?? [];
    if (call.receiver === null) {
      const local = definedIn(node.file, call.name);
      if (local) return local;
      if (node.file.endsWith('.go')) return goPackage(posix.dirname(node.file), call.name);
      const binding = file.bindings.find((b) => b.local === call.name);
      if (!binding) return undefined;
      for (const target of targetOf(node.file, binding, survey, linked, paths)) {
        const found = definedIn(target, binding.imported === 'default' ? call.name : binding.imported);
        if (found) return found;
      }
      return undefined;
    }
    if (['this', 'self', 'cls'].includes(call.receiver) && node.def.owner) {
      const method = file.defs.find((d) => d.owner === node.def.owner && d.callName === call.name);
      return method && nodes.get(keyOf(node.file, method));
    }
    // A namespace or module import: `api.decode(`, Python's `from . import m` then `m.f(`, Go's `pkg.Func(`.
    const module = file.bindings.find((b) => b.local === call.receiver);
    if (module) {
      for (const target of targetOf(node.file, module, survey, linked, paths)) {
        const found = node.file.endsWith('.go')
          ? goPackage(posix.dirname(target), call.name)
          : definedIn(target, call.name);
        if (found) return found;
      }
      return undefined;
    }
    // `obj.method(`: a method only one of the files read defines.
    const methods = (defsNamed.get(call.name) ?? []).filter((n) => n.def.owner !== null);
    return methods.length === 1 ? methods[0] : undefined;
  };

  const callees = new Map<string, { node: Node; line: number }[]>();
  const called = new Set<string>();
  for (const node of nodes.values()) {
    const seen = new Set<string>();
    const list: { node: Node; line: number }[] = [];
    for (const call of node.def.calls) {
      const target = resolve(node, call);
      if (!target || target.key === node.key || seen.has(target.key)) continue;
      seen.add(target.key);
      called.add(target.key);
      list.push({ node: target, line: call.line });
    }
    callees.set(node.key, list);
  }

  const terms = answer.topic.terms;
  const fileScore = new Map(answer.files.map((f) => [f.path, f.score]));
  const best = Math.max(1, ...fileScore.values());
  const relevance = new Map<string, { value: number; matches: boolean }>();
  for (const node of nodes.values()) {
    const parts = nameParts(node.def.callName).map(stem);
    const byName = terms.filter((t) => parts.some((p) => p.startsWith(t) || t.startsWith(p))).length;
    const body = node.lines
      .slice(node.def.line - 1, node.def.end)
      .join('\n')
      .toLowerCase();
    const byBody = terms.filter((t) => body.includes(t)).length;
    // Each step costs: a chain grows through a function only when what it leads to is worth the detour.
    const value = byName * 3 + byBody + (fileScore.get(node.file) ?? 0) / best - STEP_COST;
    relevance.set(node.key, { value, matches: byName + byBody > 0 });
  }

  // Each function's heaviest chain at each depth, over the calls with recursion taken out (backCalls):
  // the same whichever root reaches it first, so the chain chosen does not depend on the order of search.
  const back = backCalls(callees);
  const memo = new Map<string, { keys: string[]; value: number }>();
  const heaviest = (key: string, depth: number): { keys: string[]; value: number } => {
    const known = memo.get(`${depth}\n${key}`);
    if (known) return known;
    let tail = { keys: [] as string[], value: 0 };
    if (depth < MAX_DEPTH)
      for (const { node } of callees.get(key) ?? []) {
        if (back.has(`${key}\n${node.key}`)) continue;
        const rest = heaviest(node.key, depth + 1);
        if (rest.value > tail.value) tail = rest;
      }
    const chain = { keys: [key, ...tail.keys], value: relevance.get(key)!.value + tail.value };
    memo.set(`${depth}\n${key}`, chain);
    return chain;
  };
  const entries = new Set(survey.entryPoints.map((e) => e.path));
  const roots = [...nodes.values()]
    .filter((n) => !called.has(n.key) && (callees.get(n.key)?.length ?? 0) > 0)
    .sort(
      (a, b) =>
        Number(entries.has(b.file)) - Number(entries.has(a.file)) ||
        Number(b.def.callName === 'main') - Number(a.def.callName === 'main') ||
        a.file.localeCompare(b.file) ||
        a.def.line - b.def.line,
    );
  let chosen: { keys: string[]; value: number } | null = null;
  for (const root of roots) {
    const chain = heaviest(root.key, 0);
    if (!chosen || chain.value > chosen.value) chosen = chain;
  }
  if (!chosen) return null;
  /** A chain cut after its last function that matches the question; null when less than two are left. */
  const trimmed = (chain: readonly string[]): string[] | null => {
    const shown = chain.slice(0, MAX_STEPS);
    let last = shown.length - 1;
    while (last > 0 && !relevance.get(shown[last]!)!.matches) last--;
    return last >= 1 ? shown.slice(0, last + 1) : null;
  };
  const stepsOf = (keys: readonly string[]): FlowStep[] =>
    keys.map((key, i) => {
      const node = nodes.get(key)!;
      const next = keys[i + 1];
      const call = next ? callees.get(key)!.find((c) => c.node.key === next) : undefined;
      const excerptLine = node.def.name === TOP_LEVEL && call ? call.line : node.def.line;
      return {
        function: node.def.name === TOP_LEVEL ? `${posix.basename(node.file)} ${TOP_LEVEL}` : node.def.name,
        file: node.file,
        line: excerptLine,
        excerpt: shorten(node.lines[excerptLine - 1] ?? ''),
        call: call ? { line: call.line, text: shorten(node.lines[call.line - 1] ?? '') } : null,
      };
    });
  const main = trimmed(chosen.keys);
  if (!main) return null;
  // The first function on the way that calls more than one function leading to what is asked: every
  // one of those calls is a path of its own.
  const leadsOn = (key: string) =>
    heaviest(key, 0).keys.some((k) => relevance.get(k)!.matches) ? heaviest(key, 0) : null;
  for (let i = 0; i < main.length - 1; i++) {
    const node = nodes.get(main[i]!)!;
    const ways = (callees.get(main[i]!) ?? []).filter(
      ({ node: callee }) => !back.has(`${main[i]}\n${callee.key}`) && leadsOn(callee.key) !== null,
    );
    if (ways.length < 2) continue;
    const paths = ways.flatMap(({ node: callee, line }): FlowPath[] => {
      const keys = trimmed([...main.slice(0, i + 1), ...heaviest(callee.key, i + 1).keys]);
      return keys ? [{ steps: stepsOf(keys), when: branchOf(node.lines, node.def.line, line) }] : [];
    });
    const order = { default: 0, always: 1, optional: 2 } as const;
    return paths.sort((a, b) => order[a.when!.kind] - order[b.when!.kind]);
  }
  return [{ steps: stepsOf(main), when: null }];
}

/** A condition that holds when an option is given: `x != ""`, `x != nil`, `x !== undefined`, `len(x) > 0`, `x is not None`, a bare `x`. */
const PRESENCE =
  /!==?\s*(?:""|''|nil|null|undefined|None)|len\([^)]*\)\s*(?:>|!=)\s*0|\bis not None\b|^\s*!?!?[\w.]+\s*$/;
/** A condition that holds when it is not: `x == ""`, `x == nil`, `!x`, `x is None`, `len(x) == 0`. */
const ABSENCE = /[^!=]==?=?\s*(?:""|''|nil|null|undefined|None)|len\([^)]*\)\s*==\s*0|\bis None\b|^\s*!\s*[\w.]+\s*$/;

/**
 * Whether the call at `callLine` of a function starting at `defLine` runs on every path, on the default
 * one (no option given: the `else` of `if option != ""`) or only when an option is given — read from the
 * `if`/`else` blocks around it: by their braces (Go, TypeScript, JavaScript) or indentation (Python).
 */
function branchOf(lines: readonly string[], defLine: number, callLine: number): FlowPath['when'] {
  interface Block {
    condition: string | null;
    inElse: boolean;
    /** Python: the indentation of its head. */
    indent: number;
  }
  const blocks: Block[] = [];
  const indentOf = (line: string) => /^\s*/.exec(line)![0].length;
  const python = /:\s*$/.test((lines[defLine - 1] ?? '').trim());
  for (let n = defLine + 1; n <= callLine; n++) {
    const line = lines[n - 1] ?? '';
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (python) {
      const continues = /^(?:else|elif)\b/.test(trimmed);
      while (
        blocks.length &&
        indentOf(line) <= blocks[blocks.length - 1]!.indent &&
        !(continues && indentOf(line) === blocks[blocks.length - 1]!.indent)
      )
        blocks.pop();
    }
    if (n === callLine) break;
    const elseIf = /^(?:\}\s*else\s+if|elif)\b\s*\(?(.*?)\)?\s*[{:]\s*$/.exec(trimmed);
    const ifHead = /^if\b\s*\(?(.*?)\)?\s*[{:]\s*$/.exec(trimmed);
    const elseHead = /^(?:\}\s*)?else\s*[{:]\s*$/.test(trimmed);
    if (elseIf || elseHead) {
      const previous = blocks.pop();
      blocks.push({
        condition: elseIf ? elseIf[1]!.trim() : (previous?.condition ?? null),
        inElse: elseHead,
        indent: indentOf(line),
      });
      continue;
    }
    if (ifHead) {
      blocks.push({ condition: ifHead[1]!.trim(), inElse: false, indent: indentOf(line) });
      continue;
    }
    if (!python) {
      for (const brace of trimmed.match(/[{}]/g) ?? [])
        if (brace === '{') blocks.push({ condition: null, inElse: false, indent: indentOf(line) });
        else blocks.pop();
    }
  }
  const branch = [...blocks].reverse().find((b) => b.condition !== null);
  if (!branch) return { kind: 'always', condition: null };
  const condition = branch.condition!;
  const optionGiven = PRESENCE.test(condition) && !ABSENCE.test(condition);
  return {
    kind: branch.inElse === optionGiven ? 'default' : 'optional',
    condition: branch.inElse ? `not (${condition})` : condition,
  };
}

/**
 * The calls that close a cycle (recursion, mutual or direct), as `caller\ncallee`: the back edges of one
 * depth-first search from every function in sorted order, so the rest of the calls form an acyclic graph
 * that is the same however the chain is later searched. Iterative: a long call graph does not overflow the stack.
 */
function backCalls(callees: ReadonlyMap<string, readonly { node: Node }[]>): Set<string> {
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  for (const start of [...callees.keys()].sort()) {
    if (state.has(start)) continue;
    state.set(start, 'open');
    const stack: { key: string; next: number }[] = [{ key: start, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const calls = callees.get(top.key) ?? [];
      if (top.next === calls.length) {
        state.set(top.key, 'done');
        stack.pop();
        continue;
      }
      const callee = calls[top.next++]!.node.key;
      const seen = state.get(callee);
      if (seen === 'open') back.add(`${top.key}\n${callee}`);
      else if (seen === undefined) {
        state.set(callee, 'open');
        stack.push({ key: callee, next: 0 });
      }
    }
  }
  return back;
}

function shorten(line: string): string {
  const text = line.trim();
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT - 1).trimEnd()}…` : text;
}
