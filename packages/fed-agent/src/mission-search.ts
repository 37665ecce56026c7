import { basename, dirname, join } from 'node:path';
import { type FileRecord, outsideProduct, readAnalysedText, type Survey } from 'fed/survey';
import { stem, type MissionTopic } from './mission-plan.js';
import { isMissionWord } from './mission-words.js';

/**
 * Answering a mission topic from the codebase: every code and documentation file is ranked by how well
 * its path (strongest), the names it declares, and its text match the topic's terms; the best come with
 * short excerpts (file and line), and a "how does X flow" topic with the chain of imports that links the
 * matching files. A named thing with a word no file mentions, a question no file matches most of the
 * words of, or a path that is not there, is unanswered: the agent fails rather than pass a generic
 * overview off as an answer.
 */
export interface Quote {
  line: number;
  text: string;
}

export interface RankedFile {
  path: string;
  score: number;
  /** What matched: `path`, `identifier`, `text`. */
  matchedBy: string[];
  /** The terms this file matches, as the mission wrote them. */
  terms: string[];
  excerpts: Quote[];
  /** Markdown fence tag of its language. */
  fence: string;
}

export interface ChainStep {
  from: string;
  to: string;
  /** The line of `from` that imports `to`. */
  importLine: Quote | null;
  /** The first line of `from` that calls a name `to` declares. */
  callLine: (Quote & { name: string }) | null;
}

export interface TopicAnswer {
  topic: MissionTopic;
  files: RankedFile[];
  /** Words (as the mission wrote them) or paths no file mentions. */
  missing: string[];
  /**
   * Whether the codebase answers the topic: every path exists, and every word is found (a quoted name)
   * or one file matches most of the words (a sentence).
   */
  answered: boolean;
  /** For a flow topic: the files the chain passes through, in order, and how each hop is made. */
  chain: { files: string[]; steps: ChainStep[] } | null;
  /**
   * For an unanswered topic: the words of it that the codebase does mention, where, and — when every
   * occurrence follows the same word — in what sense (`checkout` only as `git checkout`).
   */
  foundInstead: WordUse[];
}

/** Where a word of the mission occurs, and the one word that always comes before it, if one does. */
export interface WordUse {
  word: string;
  files: string[];
  /** "git checkout": every occurrence reads so. */
  only: string | null;
}

export interface MissionSearch {
  /**
   * One per topic that stands: a topic's tentative terms the codebase does not name were instruction
   * and are left out, and a topic left with nothing to look for is no topic (see MissionTopic.tentative).
   */
  answers: TopicAnswer[];
  /** How many files were searched, and which kinds. */
  searched: number;
}

const MAX_RANKED = 5;
/** What lying under a path the mission names is worth: more than any one word matched. */
const PATH_SCORE = 4;
const MAX_EXCERPTS = 2;
const EXCERPT_CONTEXT = 1;
const MAX_CHAIN_FILES = 40;

/** Declarations across the languages the survey knows: `function x`, `class X`, `def x`, `func (r) X`, `fn x`, `const x =`, `type X`. */
const DECLARATION =
  /\b(?:function\*?|class|interface|type|enum|struct|trait|def|fn|func(?:\s*\([^)]*\))?|const|let|var|module)\s+([A-Za-z_$][\w$]*)/g;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The short forms code uses for words a mission spells out: "database" is found as `db`, "request" as `req`. */
const ABBREVIATIONS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries({
    database: ['db'],
    configuration: ['config', 'cfg', 'conf'],
    config: ['cfg', 'conf'],
    authentication: ['auth', 'authn'],
    authorization: ['auth', 'authz'],
    authorisation: ['auth', 'authz'],
    message: ['msg'],
    request: ['req'],
    response: ['res', 'resp'],
    repository: ['repo'],
    directory: ['dir'],
    document: ['doc'],
    application: ['app'],
    parameter: ['param'],
    argument: ['arg'],
    error: ['err'],
    context: ['ctx'],
    initialize: ['init'],
    initialise: ['init'],
    environment: ['env'],
    specification: ['spec'],
    library: ['lib'],
    utility: ['util'],
    utilities: ['util'],
    temporary: ['tmp', 'temp'],
    transaction: ['tx', 'txn'],
    command: ['cmd'],
    synchronize: ['sync'],
    synchronise: ['sync'],
    asynchronous: ['async'],
    information: ['info'],
    administrator: ['admin'],
    password: ['pwd', 'passwd'],
  }).map(([word, short]) => [stem(word), short]),
);

/** A term where a word (or a camelCase part) starts: `request` in `handleRequest` and `REQUEST_ID`, not in `unrequested`; or one of its abbreviations. */
/** The lowercase strings a term's pattern can match: the term, its other spelling, its abbreviations. */
function spellings(term: string): string[] {
  // British and American spellings: "authorised" finds `authorize`, "serialize" finds `serialise`.
  const spelling = /i[sz](?=$|a)/.test(term)
    ? [term.replace(/i([sz])(?=$|a)/, (_, z: string) => (z === 's' ? 'iz' : 'is'))]
    : [];
  return [term, ...spelling, ...(ABBREVIATIONS[term] ?? [])];
}

function termPattern(term: string): RegExp {
  const alternative = (word: string) => {
    const chars = [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : escapeRegExp(c)));
    const first = word[0]!;
    const head = /[a-z]/.test(first)
      ? `(?:(?<![A-Za-z])[${first}${first.toUpperCase()}]|(?<=[a-z])${first.toUpperCase()})`
      : `(?<![A-Za-z])${escapeRegExp(first)}`;
    // An abbreviation must end its word (`db`, `dbPool`), not begin a longer one (`dbus`).
    return `${head}${chars.slice(1).join('')}${ABBREVIATIONS[term]?.includes(word) ? '(?![a-z])' : ''}`;
  };
  return new RegExp(spellings(term).map(alternative).join('|'), 'g');
}

interface Candidate {
  file: FileRecord;
  text: string;
  /** The text lowercased, where a term's spellings are looked for. */
  lower: string;
  /** Split on first use: only the files quoted or chained need their lines. */
  readonly lines: string[];
  /** The names the file declares, space-separated: a term pattern finds a term where a name (or a camelCase part of one) starts. */
  declaredNames: string;
  /** Lines with a declaration on them. */
  declarationLines: Set<number>;
  weight: number;
}

function loadCandidates(survey: Survey): Candidate[] {
  const candidates: Candidate[] = [];
  for (const file of survey.files) {
    if (!file.analysed || (file.language?.kind !== 'code' && file.language?.kind !== 'docs')) continue;
    const text = readAnalysedText(join(survey.codebase, file.path));
    if (text === undefined) continue; // changed or gone since the scan: the scan's own report covers unreadable files
    const names: string[] = [];
    const declarationLines = new Set<number>();
    if (file.language.kind === 'code') {
      let line = 1;
      let counted = 0;
      for (const match of text.matchAll(DECLARATION)) {
        for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < match.index; nl = text.indexOf('\n', nl + 1))
          line++;
        counted = match.index;
        names.push(match[1]!);
        declarationLines.add(line);
      }
    }
    // Tests, examples and prose explain the code; the product's own code answers first.
    const weight = file.test || outsideProduct(file.path) ? 0.5 : file.language.kind === 'docs' ? 0.7 : 1;
    let lines: string[] | undefined;
    candidates.push({
      file,
      text,
      lower: text.toLowerCase(),
      get lines() {
        return (lines ??= text.split('\n'));
      },
      declaredNames: names.join(' '),
      declarationLines,
      weight,
    });
  }
  return candidates;
}

function bestExcerpts(candidate: Candidate, patterns: RegExp[]): Quote[] {
  const scored = candidate.lines.map((line, i) => {
    const hits = patterns.filter((p) => {
      p.lastIndex = 0;
      return p.test(line);
    }).length;
    const declares = candidate.declarationLines.has(i + 1) ? 0.5 : 0;
    return { i, score: hits === 0 ? 0 : hits + declares };
  });
  const picked: number[] = [];
  for (const { i } of scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.i - b.i)) {
    if (picked.some((p) => Math.abs(p - i) <= EXCERPT_CONTEXT * 2)) continue;
    picked.push(i);
    if (picked.length === MAX_EXCERPTS) break;
  }
  return picked
    .sort((a, b) => a - b)
    .map((i) => {
      let from = Math.max(0, i - EXCERPT_CONTEXT);
      while (from < i && candidate.lines[from]!.trim() === '') from++;
      const text = candidate.lines
        .slice(from, i + EXCERPT_CONTEXT + 1)
        .map((l) => (l.length > 160 ? `${l.slice(0, 157)}...` : l))
        .join('\n');
      return { line: from + 1, text: text.replace(/\s+$/, '') };
    });
}

const MAX_COUNTED_HITS = 20;

const isLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isLower = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';

/**
 * How often `term` occurs in `candidate`'s text as its pattern finds it, counted up to MAX_COUNTED_HITS
 * (more adds nothing to a score). The same rule as termPattern, checked by hand at each place
 * `indexOf` finds a spelling in the lowercased text: a regular expression that starts with a lookbehind
 * tries every position of every file, which dominated answering a mission on a large codebase.
 */
function hits(term: string, termSpellings: readonly string[], pattern: RegExp, candidate: Candidate): number {
  const { text, lower } = candidate;
  if (lower.length !== text.length) {
    // Lowercasing changed the length (rare Unicode): positions do not line up, so let the pattern count.
    pattern.lastIndex = 0;
    let count = 0;
    while (count < MAX_COUNTED_HITS && pattern.exec(text)) count++;
    return count;
  }
  // Where a match starts: the pattern finds one match per place, whichever spelling (`ERROR`, not also `ERR`).
  const starts = new Set<number>();
  for (const spelling of termSpellings) {
    const abbreviation = ABBREVIATIONS[term]?.includes(spelling) ?? false;
    for (let at = lower.indexOf(spelling); at !== -1;) {
      const first = text[at]!;
      const before = text[at - 1];
      // A word starts here, or a camelCase part does (`handleRequest`); an abbreviation ends its word.
      const matches =
        (!isLetter(before) || (isLower(before) && first >= 'A' && first <= 'Z')) &&
        !(abbreviation && isLower(text[at + spelling.length]));
      if (matches && starts.add(at).size === MAX_COUNTED_HITS) return MAX_COUNTED_HITS;
      at = lower.indexOf(spelling, at + (matches ? spelling.length : 1));
    }
  }
  return starts.size;
}

function rank(
  candidates: readonly Candidate[],
  topic: MissionTopic,
): { ranked: (RankedFile & { candidate: Candidate })[]; missing: string[] } {
  const patterns = topic.terms.map(termPattern);
  const lowered = topic.terms.map(spellings);
  const found = new Set<string>();
  const ranked: (RankedFile & { candidate: Candidate })[] = [];
  for (const candidate of candidates) {
    const inPath = topic.paths.filter((p) => candidate.file.path === p || candidate.file.path.startsWith(`${p}/`));
    let score = inPath.length * PATH_SCORE;
    const matchedBy = new Set<string>(inPath.length ? ['path'] : []);
    const terms: string[] = [];
    topic.terms.forEach((term, t) => {
      const pattern = patterns[t]!;
      const textHits = hits(term, lowered[t]!, pattern, candidate);
      pattern.lastIndex = 0;
      const path = pattern.test(candidate.file.path);
      pattern.lastIndex = 0;
      const identifier = pattern.test(candidate.declaredNames);
      if (!path && !identifier && textHits === 0) return;
      terms.push(topic.words[t] ?? term);
      if (path) matchedBy.add('path');
      if (identifier) matchedBy.add('identifier');
      if (textHits) matchedBy.add('text');
      score += (path ? 3 : 0) + (identifier ? 2 : 0) + (textHits ? 1 + textHits / MAX_COUNTED_HITS : 0);
    });
    topic.terms.forEach((term, t) => terms.includes(topic.words[t] ?? term) && found.add(term));
    for (const path of inPath) found.add(path);
    if (score === 0) continue;
    // Files that match every term answer better than files that match one term often.
    const coverage = topic.terms.length ? terms.length / topic.terms.length : 1;
    ranked.push({
      candidate,
      path: candidate.file.path,
      score: Math.round(score * coverage * candidate.weight * 100) / 100,
      matchedBy: ['path', 'identifier', 'text'].filter((m) => matchedBy.has(m)),
      terms,
      excerpts: [],
      fence: candidate.file.language?.fence ?? 'text',
    });
  }
  ranked.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const missing = [
    ...topic.terms.flatMap((t, i) => (found.has(t) ? [] : [topic.words[i] ?? t])),
    ...topic.paths.filter((p) => !found.has(p)),
  ];
  return { ranked, missing };
}

/** The line of `from` that imports `to`: an import statement naming `to`'s file (or, for Go and `__init__.py`, its folder). */
function importLine(from: Candidate, to: string): Quote | null {
  const stemOf = basename(to).replace(/\.[^.]+$/, '');
  const name = stemOf === '__init__' || to.endsWith('.go') ? basename(dirname(to)) : stemOf;
  const index = from.lines.findIndex((line) => /\b(import|from|require|use)\b/.test(line) && line.includes(name));
  return index === -1 ? null : { line: index + 1, text: from.lines[index]!.trim() };
}

/**
 * The names an import line brings in: `import { a, b as c } from` → a, c; `import d from` → d;
 * `const { a } = require(` → a; `from x import a, b` → a, b.
 */
function importedNames(line: string): string[] {
  const clause =
    /^\s*import\s+(?:type\s+)?(.+?)\s+from\b/.exec(line)?.[1] ??
    /^\s*(?:const|let|var)\s+(.+?)\s*=\s*require\s*\(/.exec(line)?.[1] ??
    /^\s*from\s+\S+\s+import\s+(.+)$/.exec(line)?.[1] ??
    '';
  return clause
    .replace(/[{}()*]/g, ',')
    .split(',')
    .map((part) =>
      part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+|\s*:\s*/)
        .pop()!
        .trim(),
    )
    .filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
}

/**
 * The first line of `from`, past its imports, that calls what it imports from `to`: a name the import
 * line brings in, or for Go a `pkg.Func(` call on the imported package.
 */
function callLine(from: Candidate, to: string, imported: Quote | null): ChainStep['callLine'] {
  if (!imported) return null;
  const goPackage = to.endsWith('.go') ? basename(dirname(to)) : null;
  // A parenthesised import list (`from .x import (` / `import {`) continues on the next lines.
  let statement = imported.text;
  for (let i = imported.line; /[({]\s*$/.test(statement) || (/[({]/.test(statement) && !/[)}]/.test(statement)); i++) {
    if (i >= from.lines.length || i > imported.line + 50) break;
    statement += ` ${from.lines[i]!.trim()}`;
  }
  const names = goPackage ? [] : importedNames(statement);
  if (!goPackage && names.length === 0) return null;
  // `name(`, or `name.member(` when the import is a module or namespace (`api.decode(`, Go's `pkg.Func(`).
  const call = new RegExp(
    `(?<![\\w$.])(${goPackage ? escapeRegExp(goPackage) : names.map(escapeRegExp).join('|')})(\\.[A-Za-z_$][\\w$]*)?\\s*\\(`,
  );
  for (let i = imported.line; i < from.lines.length; i++) {
    const line = from.lines[i]!;
    if (DECLARATION_LINE.test(line)) continue;
    const match = call.exec(line);
    if (match && !(goPackage && !match[2]))
      return { line: i + 1, text: line.trim(), name: `${match[1]!}${match[2] ?? ''}` };
  }
  return null;
}
const DECLARATION_LINE = /^\s*(export\s+)?(async\s+)?(function|def|func|fn|class)\b/;

/** Files matching less than this share of the best match's score are too weak to carry a chain. */
const CHAIN_MIN_SHARE = 0.1;

/** Per file, the chain from it along `edges` through `scoreOf`'s files that carries the most relevance. */
function heaviestChains(
  edges: ReadonlyMap<string, string[]>,
  scoreOf: ReadonlyMap<string, number>,
): (path: string) => { files: string[]; value: number } {
  const best = new Map<string, { files: string[]; value: number }>();
  const visiting = new Set<string>();
  const walk = (path: string): { files: string[]; value: number } => {
    const known = best.get(path);
    if (known) return known;
    visiting.add(path);
    let tail = { files: [] as string[], value: 0 };
    for (const target of edges.get(path) ?? []) {
      if (!scoreOf.has(target) || visiting.has(target)) continue;
      const rest = walk(target);
      if (rest.value > tail.value) tail = rest;
    }
    visiting.delete(path);
    const chain = { files: [path, ...tail.files], value: (scoreOf.get(path) ?? 0) + tail.value };
    best.set(path, chain);
    return chain;
  };
  return walk;
}

/**
 * The chain of imports through the best matching file: the matching files that lead to it and those it
 * leads to, each way the one carrying the most relevance (the sum of scores; only product code matching at
 * least a tenth as well as the best file takes part). When no matching file imports or is imported by
 * it, the shortest chain from an entry point to it.
 */
function findChain(ranked: readonly RankedFile[], survey: Survey): string[] | null {
  const linked = new Set(survey.graph.links.flatMap((l) => [l.from, l.to]));
  const code = ranked.filter((r) => linked.has(r.path));
  const goal = code[0];
  if (!goal) return null;
  const scoreOf = new Map(
    code
      .filter((r) => r.score >= goal.score * CHAIN_MIN_SHARE)
      .slice(0, MAX_CHAIN_FILES)
      .map((r) => [r.path, r.score]),
  );
  const forward = new Map<string, string[]>();
  const backward = new Map<string, string[]>();
  for (const { from, to } of survey.graph.links) {
    (forward.get(from) ?? forward.set(from, []).get(from)!).push(to);
    (backward.get(to) ?? backward.set(to, []).get(to)!).push(from);
  }
  const after = heaviestChains(forward, scoreOf)(goal.path).files;
  const before = heaviestChains(backward, scoreOf)(goal.path).files.reverse();
  const through = [...before.filter((f) => !after.includes(f)), ...after];
  if (through.length >= 2) return through;
  for (const entry of survey.entryPoints) {
    const previous = new Map<string, string>([[entry.path, '']]);
    const queue = [entry.path];
    while (queue.length && !previous.has(goal.path)) {
      const at = queue.shift()!;
      for (const target of forward.get(at) ?? []) {
        if (previous.has(target)) continue;
        previous.set(target, at);
        queue.push(target);
      }
    }
    if (!previous.has(goal.path) || goal.path === entry.path) continue;
    const path: string[] = [];
    for (let at = goal.path; at !== ''; at = previous.get(at)!) path.unshift(at);
    return path;
  }
  return null;
}

/**
 * The topic with its tentative terms narrowed to those a file or folder name or a declared name matches;
 * null when nothing is left to look for.
 */
function standing(topic: MissionTopic, candidates: readonly Candidate[]): MissionTopic | null {
  if (!topic.tentative) return topic;
  const named = (term: string) => {
    const pattern = termPattern(term);
    return candidates.some((c) => {
      pattern.lastIndex = 0;
      if (pattern.test(c.file.path)) return true;
      pattern.lastIndex = 0;
      return pattern.test(c.declaredNames);
    });
  };
  const kept = topic.terms.map((term) => !topic.tentative!.includes(term) || named(term));
  // A part that the codebase names keeps the main subject asked about: it cannot stand in for it.
  const keep = kept.some(Boolean)
    ? topic.terms.map((term, i) => kept[i]! || topic.main?.includes(term) === true)
    : kept;
  const terms = topic.terms.filter((_, i) => keep[i]);
  if (terms.length === 0 && topic.paths.length === 0) return null;
  const { tentative, main, ...rest } = topic;
  const stillTentative = tentative.filter((t) => terms.includes(t) && !main?.includes(t));
  const mainLeft = main?.filter((t) => terms.includes(t)) ?? [];
  return {
    ...rest,
    ...(mainLeft.length && mainLeft.length < terms.length ? { main: mainLeft } : {}),
    terms,
    words: topic.words.filter((_, i) => keep[i]),
    ...(stillTentative.length ? { tentative: stillTentative } : {}),
  };
}

/**
 * A sentence is answered where one file matches most of its words — and, when it names a main subject
 * (MissionTopic.main), most of the main subject's words: its parts alone answer nothing.
 */
function answersMost(topic: MissionTopic, ranked: readonly RankedFile[]): boolean {
  const most = (n: number) => Math.floor(n / 2) + 1;
  const wordOf = (term: string) => topic.words[topic.terms.indexOf(term)] ?? term;
  const mainWords = (topic.main ?? []).map(wordOf);
  return (
    topic.terms.length === 0 ||
    ranked.some(
      (r) =>
        r.terms.length >= most(topic.terms.length) &&
        (mainWords.length === 0 || r.terms.filter((t) => mainWords.includes(t)).length >= most(mainWords.length)),
    )
  );
}

const MAX_USE_FILES = 3;
/** Declaration and statement keywords of the languages the survey reads. */
const KEYWORDS = new Set(
  'function func def fn class struct interface type enum const let var return new export import from package pub async await static public private protected self this'.split(
    ' ',
  ),
);

/**
 * Where `term` occurs, and the word before it when every occurrence has the same one ("git checkout",
 * also as `exec.Command("git", "checkout")`): a word of the mission used in another sense.
 */
function wordUse(term: string, word: string, ranked: readonly (RankedFile & { candidate: Candidate })[]): WordUse {
  const holding = ranked.filter((r) => r.terms.includes(word));
  const pattern = termPattern(term);
  const before = new Set<string>();
  for (const { candidate } of holding) {
    pattern.lastIndex = 0;
    for (const match of candidate.text.matchAll(pattern)) {
      const previous = /([A-Za-z][\w-]*)(?:["'`,]|[^\S\n])+$/.exec(
        candidate.text.slice(Math.max(0, match.index - 40), match.index),
      );
      const word = previous?.[1]!.toLowerCase() ?? '';
      // A keyword or a word of grammar before it says nothing about the sense it is used in.
      before.add(KEYWORDS.has(word) || isMissionWord(word) ? '' : word);
      if (before.size > 1) break;
    }
    if (before.size > 1) break;
  }
  const [only] = before;
  return {
    word,
    files: holding.slice(0, MAX_USE_FILES).map((r) => r.path),
    only: before.size === 1 && only ? `${only} ${word}` : null,
  };
}

export function searchMission(survey: Survey, asked: readonly MissionTopic[]): MissionSearch {
  if (asked.length === 0) return { answers: [], searched: 0 };
  const candidates = loadCandidates(survey);
  const byPath = new Map(candidates.map((c) => [c.file.path, c]));
  const topics = asked.flatMap((topic) => standing(topic, candidates) ?? []);
  const answers = topics.map((topic): TopicAnswer => {
    const ranked = rank(candidates, topic);
    // A named path may hold only data or binary files, which are not searched for words: it is there all the same.
    const under = (path: string) => topic.paths.some((p) => path === p || path.startsWith(`${p}/`));
    const missing = ranked.missing.filter(
      (m) => !topic.paths.includes(m) || !survey.files.some((f) => f.path === m || f.path.startsWith(`${m}/`)),
    );
    const unsearched = topic.paths.length ? survey.files.filter((f) => under(f.path) && !byPath.has(f.path)) : [];
    const answered =
      !missing.some((m) => topic.paths.includes(m)) &&
      (topic.exact ? missing.length === 0 : answersMost(topic, ranked.ranked));
    const patterns = topic.terms.map(termPattern);
    const files = [
      ...ranked.ranked
        .slice(0, MAX_RANKED)
        .map(({ candidate, ...file }) => ({ ...file, excerpts: bestExcerpts(candidate, patterns) })),
      ...unsearched.map((f) => ({
        path: f.path,
        score: PATH_SCORE,
        matchedBy: ['path'],
        terms: [],
        excerpts: [],
        fence: f.language?.fence ?? 'text',
      })),
    ]
      .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path))
      .slice(0, MAX_RANKED);
    const chainFiles = topic.flow && answered ? findChain(ranked.ranked, survey) : null;
    const chain = chainFiles && {
      files: chainFiles,
      steps: chainFiles.slice(1).map((to, i) => {
        const from = byPath.get(chainFiles[i]!);
        const imported = from ? importLine(from, to) : null;
        return { from: chainFiles[i]!, to, importLine: imported, callLine: from ? callLine(from, to, imported) : null };
      }),
    };
    const foundInstead = answered
      ? []
      : topic.terms.flatMap((term, i) => {
          const word = topic.words[i] ?? term;
          return missing.includes(word) ? [] : [wordUse(term, word, ranked.ranked)];
        });
    return { topic, files, missing, answered, chain, foundInstead };
  });
  return { answers, searched: candidates.length };
}
