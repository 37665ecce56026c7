import { isMissionWord, kindNamed, OVERVIEW_CONTENT, type MissionKind } from './mission-words.js';

export type { MissionKind } from './mission-words.js';

/**
 * What the mission asks (docs/design/spec.md §3.1 "preparing": the mission is read and the document
 * planned from it): a kind of document (overview, architecture, onboarding guide, flow explanation,
 * audit, reference) and zero or more subjects. Words of instruction ("survey", "read-only study", "please
 * write a short doc for new contributors") are never subjects: mission-words.ts holds the closed classes
 * of words a mission is phrased with, and what is left is the subject. The subject and body are split
 * into sentences (and list items); each question, each quoted name
 * ("payment gateway", `Router`) and each path (`src/server/`) that says something specific about the
 * codebase becomes a topic the document must answer in a section of its own. What every document covers
 * anyway — layout, architecture, build, run, tests, dependencies — is the general overview: a mission
 * made only of such words asks for the overview, and the overview follows the mission's sections unless
 * the mission restricts itself ("only", "just"). A question about how something happens ("how does X
 * flow", "how is Y handled") is a flow topic: it is answered with the path it takes through the code.
 */
export interface MissionTopic {
  /** The section title: the question as asked, or the named thing. */
  title: string;
  /** Where in the mission it comes from. */
  source: string;
  /** Word stems to look for in file paths, identifiers and text. */
  terms: string[];
  /** The mission's own word behind each term, for showing (same order as `terms`). */
  words: string[];
  /** Paths the mission names, relative to the codebase, without a trailing `/`. */
  paths: string[];
  /** A "how does X flow / get handled / go through" question: answered with a chain of imports. */
  flow: boolean;
  /**
   * A quoted name ("payment gateway"): every word must be found. A sentence is answered when one file
   * matches most of its words — a question's verbs ("talk", "reach") need not appear in the code.
   */
  exact: boolean;
  /**
   * Terms (of `terms`) that are subjects only where the codebase names them — a declared name, a file or
   * folder name — and otherwise words of instruction: the plain words of a statement that no document
   * verb asks about ("Give me the lay of the land", "Keep it under two pages") and of a question about the
   * codebase itself or its reader ("What are its moving parts?"). Absent when every term is asked for.
   */
  tentative?: string[];
  /**
   * Terms (of `terms`) of the sentence's main subject, when the sentence names one and then its parts:
   * "the Stripe payment gateway: the checkout flow and webhook handling", "OAuth login with Okta — the
   * redirect and token refresh". The topic is answered only where the main subject is found: a part
   * that matches (`checkout`, `refresh`) never answers for a subject the codebase does not have.
   */
  main?: string[];
}

export interface MissionPlan {
  /**
   * The kind of document asked for: named by the mission's words (subject first, then body), else `flow`
   * for a how-does-X-work question, else the general `overview`.
   */
  kind: MissionKind;
  topics: MissionTopic[];
  /** Whether the general overview follows the mission's sections. */
  overview: boolean;
  /**
   * The mission asks for the repository's packages and how they depend on each other ("list every
   * package … and draw how they depend on each other", "the crates of this workspace and their
   * dependencies"): answered from the manifests, whatever the word for a package — package, module,
   * crate, workspace member. Such a sentence is that question, so none of its words becomes a topic.
   */
  packageGraph: boolean;
}

const MAX_TOPICS = 8;
const MAX_TERMS = 6;

const FLOW =
  /\b(flows?|flowing|pipeline|lifecycle|travels?|passes|goes|through|handled|processed|dispatched|routed|call chain|sequence)\b/i;
/** "How does X get parsed?", "How is a request handled?": how something happens, answered by the path it takes through the code. */
const HOW_DOES = /^how\s+(?:does|do|did|is|are|was|were|can|will)\b/i;
/** "Only", "just"… restrict the document to the topics; "read-only" is how to work, not what to write. */
const RESTRICTIVE = /(?<![\w-])(only|just|solely|exclusively|nothing else|no overview)\b/i;
/** A constraint on how to work, to the end of its clause: "do not change anything", "never run it", "without network". */
const CONSTRAINT = /\b(?:do not|don't|dont|never|without|no need to|avoid)\b[^.,;:!?]*/gi;
/** A how-question inside an instruction: "Explain how the router works", "Document how a request gets handled". */
const EMBEDDED_HOW = /\bhow\s+(?!to\b)(?:[\w-]+\s+){1,5}?(?:works?|flows?|happens?|runs?|gets?|is|are|does|do)\b/i;
const QUESTION_START = /^(how|what|where|why|which|who|when|does|do|is|are|can)\b/i;
const PATH_LIKE = /^(?:[\w.-]+\/)+[\w.-]*$|^[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|rb|json|toml|ya?ml|md)$/;

/** A statement asking about what follows its verb: "Document the payment gateway", "Focus on caching". */
const ASKS_ABOUT =
  /^(?:please\s+)?(?:document|explain|describe|cover|detail|summari[sz]e|outline|introduce)\s+(?!how\s+to\b|what\b|why\b|where\b|me\b|us\b|it\b)|\b(?:focus(?:ing)?|concentrat(?:e|ing))\s+on\b|\bwrite\s+(?:[\w-]+\s+){0,3}?(?:about|on)\s/i;
/** A request phrased as a question, "Can you explain the router?": a statement once this is taken off. */
const REQUEST = /^(?:can|could|would|will)\s+you\s+(?:please\s+)?/i;
/** A question about the reader or the codebase itself: "How do I get started?", "What are its moving parts?". */
const ABOUT_READER_OR_CODEBASE =
  /^\w+\s+(?:\w+\s+)?(?:i|we|you|one|it|its|they|their|this|here)\b|\b(?:i|we|you)\s+(?:should|need|must|can|could)\b/i;
/** Words written as code: camelCase, PascalCase with two humps, snake_case. */
const CODE_LIKE = /(?<![\w$])(?:[a-z]+[A-Z][\w$]*|[A-Z][a-z\d]+[A-Z][\w$]*|[A-Za-z\d]+_[\w$]+)/g;

/** What a repository's units are called: an npm package, a Go module, a Cargo crate, a workspace member. */
const PACKAGE_UNIT = /\b(?:packages?|modules?|crates?|workspaces?|monorepo|sub-?projects?|libraries)\b/i;
/** Asking for all of them, or for how they relate: "every package", "depend on each other", "the dependency graph". */
const PACKAGE_RELATION =
  /\b(?:each other|one another|between (?:them|the (?:packages|modules|crates|members))|(?:dependency|package|module|crate) graph|inter-?dependenc\w*|internal dependenc\w*|(?:which|what) (?:\w+ ){0,2}depends?|(?:which|what) (?:workspace )?(?:packages|modules|crates|members|sub-?projects)\b|depends? on which|(?:every|all|each)(?: of the)? (?:workspace )?(?:packages?|modules?|crates?|members?|sub-?projects?)|(?:list|enumerate|name) (?:the |its |their )?(?:workspace )?(?:packages|modules|crates|members|sub-?projects))\b/i;

/** A sentence asking for the package graph (MissionPlan.packageGraph). */
const asksPackageGraph = (sentence: string) => PACKAGE_UNIT.test(sentence) && PACKAGE_RELATION.test(sentence);

/** Where a sentence names its main subject before its parts: "X: the parts", "X — the parts", "X - the parts". */
const MAIN_SUBJECT_END = /:\s|\s[—–-]\s|\s\(/;

/**
 * Names written as names: a word capitalised inside a sentence (Stripe, Okta) or with capitals inside it
 * (OAuth, JWT, GraphQL). Always asked about, and looked for as written: "Stripe" is not the stem "strip".
 */
function properNouns(sentence: string): Set<string> {
  const found = new Set<string>();
  const tokens = sentence.split(/\s+/).map((t) => t.replace(/^[^\w]+|[^\w]+$/g, ''));
  tokens.forEach((token, i) => {
    const startsClause = i === 0 || /[.!?:;—–]$/.test(sentence.split(/\s+/)[i - 1]!);
    const named = /^[A-Z][a-z\d]/.test(token) ? !startsClause : /^\w*[A-Z]\w*[A-Z]/.test(token);
    if (named && !isMissionWord(token.toLowerCase())) found.add(token.toLowerCase());
  });
  return found;
}

const FILE_NAME = /^[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|rb|json|toml|ya?ml|md)$/;

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * A word reduced to the stem its forms share, so "requests", "routing" and "handled" find "request",
 * "router" and "handler": one common English suffix is dropped when a stem of at least four letters is left.
 */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  for (const suffix of ['ies', 'ied', 'ing', 'ers', 'er', 'es', 'ed', 'e', 's']) {
    if (lower.endsWith(suffix) && lower.length - suffix.length >= (suffix === 's' ? 3 : 4))
      return lower.slice(0, -suffix.length);
  }
  return lower;
}

/**
 * The words of a text, lowercased, as the segmenter sees them (letters, digits, `_`, `-` inside a word),
 * without their clitics: "project's" is "project", "I'd" is "i", and "don't" is "do".
 */
export function words(text: string): string[] {
  return [...wordSegmenter.segment(text)]
    .filter((s) => s.isWordLike)
    .map((s) =>
      s.segment
        .toLowerCase()
        .replace(/n['’]t$/, '')
        .replace(/['’](?:s|d|m|re|ve|ll)$/, ''),
    );
}

function contentTerms(
  text: string,
  projectWords: ReadonlySet<string>,
  proper: ReadonlySet<string> = new Set(),
): { terms: string[]; words: string[] } {
  const terms = new Map<string, string>();
  const stemOf = (word: string) => (proper.has(word) ? word : stem(word));
  // "code base" is the codebase, not a thing called "base".
  for (const raw of words(text.replace(/\bcode\s+base\b/gi, 'codebase'))) {
    // `router.ts` is about the router; `deliverable.md` (the document itself) about nothing in the codebase.
    const word = FILE_NAME.test(raw) ? raw.slice(0, raw.lastIndexOf('.')) : raw;
    if (word.length < 3 || /^\d+$/.test(word) || isMissionWord(word) || projectWords.has(word)) continue;
    if (!terms.has(stemOf(word))) terms.set(stemOf(word), word);
  }
  const kept = [...terms].slice(0, MAX_TERMS);
  return { terms: kept.map(([term]) => term), words: kept.map(([, word]) => word) };
}

/** The mission's sentences, with list items and lines taken apart first. */
function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim())
    .filter((line) => line !== '')
    .flatMap((line) => [...sentenceSegmenter.segment(line)].map((s) => s.segment.trim()))
    .filter((sentence) => sentence !== '');
}

/** Quoted names ("…", “…”, `…`) and backticked paths in a sentence. */
function namedThings(sentence: string): { names: string[]; paths: string[] } {
  const names: string[] = [];
  const paths: string[] = [];
  for (const match of sentence.matchAll(/"([^"]+)"|“([^”]+)”|`([^`]+)`/g)) {
    const quoted = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (quoted === '') continue;
    if (PATH_LIKE.test(quoted)) paths.push(quoted.replace(/^\.\//, '').replace(/\/$/, ''));
    else names.push(quoted);
  }
  for (const token of sentence.split(/[\s,;:()]+/)) {
    const bare = token.replace(/^["'`“]+|["'`”?!.]+$/g, '');
    if (bare.includes('/') && PATH_LIKE.test(bare) && !/^https?:/.test(bare))
      paths.push(bare.replace(/^\.\//, '').replace(/\/$/, ''));
  }
  return { names, paths: [...new Set(paths)] };
}

const title = (sentence: string) =>
  sentence
    .replace(/\s+/g, ' ')
    .replace(/[.!:;]+$/, '')
    .trim();

/** Merging `other` into `topic`: a term one sentence asks about is asked about. */
function askedIn(topic: MissionTopic, other: MissionTopic): void {
  const tentative = topic.tentative?.filter((t) => !other.terms.includes(t) || other.tentative?.includes(t));
  if (tentative?.length) topic.tentative = tentative;
  else delete topic.tentative;
}

/**
 * Plan the document from the mission. `projectName` is the codebase's name: a mission asking "how does
 * tiny-ts work" is about the whole codebase, not about a thing called tiny-ts.
 */
export function planMission(mission: { subject: string; body: string }, projectName: string): MissionPlan {
  const projectWords = new Set(words(projectName));
  const topics: MissionTopic[] = [];
  const add = (topic: MissionTopic) => {
    const same = topics.find(
      (t) => t.paths.join() === topic.paths.join() && topic.terms.every((term) => t.terms.includes(term)),
    );
    if (same) {
      same.flow ||= topic.flow;
      same.exact ||= topic.exact;
      askedIn(same, topic);
      // The question says more than a heading restating it ("Request flow" → "How does a request flow …?").
      if (topic.title.endsWith('?') && !same.title.endsWith('?'))
        Object.assign(same, { title: topic.title, source: topic.source });
      return;
    }
    const wider = topics.findIndex(
      (t) => t.paths.join() === topic.paths.join() && t.terms.every((term) => topic.terms.includes(term)),
    );
    if (wider !== -1) askedIn(topic, topics.splice(wider, 1)[0]!);
    topics.push(topic);
  };
  const text = `${mission.subject}\n${mission.body}`;
  let packageGraph = false;
  for (const sentence of sentencesOf(text)) {
    if (asksPackageGraph(sentence)) {
      packageGraph = true;
      continue;
    }
    const { names, paths } = namedThings(sentence);
    // "Do not change anything." is an instruction, not a question.
    const question =
      sentence.endsWith('?') || (QUESTION_START.test(sentence) && !/^(?:do not|don't)\b/i.test(sentence));
    const flow = (question && (FLOW.test(sentence) || HOW_DOES.test(sentence))) || EMBEDDED_HOW.test(sentence);
    for (const path of paths)
      add({ title: path, source: sentence, terms: [], words: [], paths: [path], flow: false, exact: true });
    for (const name of names) {
      const found = contentTerms(name, projectWords);
      if (found.terms.length) add({ title: name, source: sentence, ...found, paths: [], flow, exact: true });
    }
    const withoutPaths = paths.reduce((rest, path) => rest.split(path).join(' '), sentence);
    // "Do not change anything", "without running it": how to work, not what to write about.
    const asked = question ? withoutPaths : withoutPaths.replace(CONSTRAINT, ' ');
    const proper = properNouns(sentence);
    const found = contentTerms(asked, projectWords, proper);
    if (found.terms.length === 0) continue;
    const head = MAIN_SUBJECT_END.exec(asked);
    const mainTerms = head ? contentTerms(asked.slice(0, head.index), projectWords, proper).terms : [];
    const main = found.terms.filter((t) => mainTerms.includes(t));
    // Open phrasing ("Give me the lay of the land") is instruction unless the sentence asks about its
    // words or the codebase names them (see MissionTopic.tentative): only code-like words are always asked.
    const request = sentence.replace(REQUEST, '');
    const asksAbout =
      ((!question || request !== sentence) && ASKS_ABOUT.test(request)) ||
      (flow && !ABOUT_READER_OR_CODEBASE.test(request));
    const codeLike = new Set((sentence.match(CODE_LIKE) ?? []).map((w) => w.toLowerCase()));
    const tentative = asksAbout
      ? []
      : found.terms.filter((_, i) => !codeLike.has(found.words[i]!) && !proper.has(found.words[i]!));
    add({
      title: title(question ? sentence : names.length === 1 ? names[0]! : sentence),
      source: sentence,
      ...found,
      paths: [],
      flow,
      exact: false,
      ...(tentative.length ? { tentative } : {}),
      ...(main.length && main.length < found.terms.length ? { main } : {}),
    });
  }
  const specific = topics.slice(0, MAX_TOPICS);
  const kind = kindOf(mission, specific);
  const asksOverview = words(text).some((w) => OVERVIEW_CONTENT.has(w));
  return {
    kind,
    topics: specific,
    overview: specific.length === 0 || asksOverview || !RESTRICTIVE.test(text),
    packageGraph,
  };
}

/**
 * The kind of document a mission asks for, given the topics it asks about: named by the subject's words,
 * else `flow` for a how-does-X-work topic, else named by the body's words, else the general overview.
 */
export function kindOf(mission: { subject: string; body: string }, topics: readonly MissionTopic[]): MissionKind {
  return (
    kindNamed(wordsBesidePaths(mission.subject)) ??
    (topics.some((t) => t.flow) ? 'flow' : undefined) ??
    kindNamed(wordsBesidePaths(mission.body)) ??
    'overview'
  );
}

/** The words of a text but its paths and file names: `src/api.ts` or `packages/audit/` name no kind of document. */
function wordsBesidePaths(text: string): string[] {
  const kept = text.split(/\s+/).filter((token) => {
    const bare = token.replace(/^["'`“(]+|["'`”?!.,;:)]+$/g, '');
    return !(bare.includes('/') ? PATH_LIKE.test(bare) : FILE_NAME.test(bare));
  });
  return words(kept.join(' '));
}
