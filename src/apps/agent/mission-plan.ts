/**
 * What the mission asks (docs/design/spec.md §3.1 "preparing": the mission is read and the document planned from it).
 * The subject and body are split into sentences (and list items); each question, each quoted name
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
}

export interface MissionPlan {
  topics: MissionTopic[];
  /** Whether the general overview follows the mission's sections. */
  overview: boolean;
}

const MAX_TOPICS = 8;
const MAX_TERMS = 6;

/** Words that carry no subject: grammar, and how missions are phrased. */
const STOP_WORDS = new Set(
  `
a about above after again all also an and any are as at be been before being below between both but by can could did do does doing done
each either else even every few for from further get gets got had has have having her here hers him his how however i if in into is it its
itself just may me might more most much must my need needs no nor not now of off on once one only or other our ours out over own per please
same shall she should so some such than that the their theirs them then there these they this those through to too under until up upon us
very via was we were what when where whether which while who whom whose why will with within without would you your yours yes etc e.g i.e
explain explains explaining describe describes describing document documents documenting documentation write writes writing show shows tell
list give find cover covers covering focus focusing detail details detailed summarise summarize understand understanding know learn want
wants like make makes made use used uses using let thing things part parts way ways kind sort exactly especially particular specifically
new newcomer newcomers beginner beginners reader readers developer developers contributor contributors engineer engineers team teams people
someone person user-facing deliverable readme flow flows flowing travel travels passes goes reach reaches look looks see check please help also too well
`
    .trim()
    .split(/\s+/),
);

/** Words that refer to the codebase itself: "how does the framework…" is about all of it. */
const CODEBASE_WORDS = new Set(
  `
codebase code repository repo project projects framework library app application software system program tool tooling source sources
work works working
`
    .trim()
    .split(/\s+/),
);

/** Words for what the general overview covers: a mission using them asks for the overview. */
const OVERVIEW_WORDS = new Set(
  `
overview architecture architectural structure structured layout laid organised organized organisation organization design designed
component components module modules dependency dependencies depend depends entry point points build builds building built run runs running
test tests testing tested install installs installation setup set start started starting getting language languages stack
hotspot hotspots todo todos risk risks quality debt audit review summary introduction intro guide onboarding general overall whole
high level high-level everything main key important
`
    .trim()
    .split(/\s+/),
);

const FLOW =
  /\b(flows?|flowing|pipeline|lifecycle|travels?|passes|goes|through|handled|processed|dispatched|routed|call chain|sequence)\b/i;
/** "How does X get parsed?", "How is a request handled?": how something happens, answered by the path it takes through the code. */
const HOW_DOES = /^how\s+(?:does|do|did|is|are|was|were|can|will)\b/i;
const RESTRICTIVE = /\b(only|just|solely|exclusively|nothing else|no overview)\b/i;
const QUESTION_START = /^(how|what|where|why|which|who|when|does|do|is|are|can)\b/i;
const PATH_LIKE = /^(?:[\w.-]+\/)+[\w.-]*$|^[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|rb|json|toml|ya?ml|md)$/;

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

/** The words of a text, lowercased, as the segmenter sees them (letters, digits, `_`, `-` inside a word). */
export function words(text: string): string[] {
  return [...wordSegmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());
}

function contentTerms(text: string, projectWords: ReadonlySet<string>): { terms: string[]; words: string[] } {
  const terms = new Map<string, string>();
  for (const raw of words(text)) {
    // `router.ts` is about the router; `deliverable.md` (the document itself) about nothing in the codebase.
    const word = FILE_NAME.test(raw) ? raw.slice(0, raw.lastIndexOf('.')) : raw;
    if (
      word.length < 3 ||
      /^\d+$/.test(word) ||
      STOP_WORDS.has(word) ||
      CODEBASE_WORDS.has(word) ||
      OVERVIEW_WORDS.has(word) ||
      projectWords.has(word)
    )
      continue;
    if (!terms.has(stem(word))) terms.set(stem(word), word);
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
      // The question says more than a heading restating it ("Request flow" → "How does a request flow …?").
      if (topic.title.endsWith('?') && !same.title.endsWith('?'))
        Object.assign(same, { title: topic.title, source: topic.source });
      return;
    }
    const wider = topics.findIndex(
      (t) => t.paths.join() === topic.paths.join() && t.terms.every((term) => topic.terms.includes(term)),
    );
    if (wider !== -1) topics.splice(wider, 1);
    topics.push(topic);
  };
  const text = `${mission.subject}\n${mission.body}`;
  for (const sentence of sentencesOf(text)) {
    const { names, paths } = namedThings(sentence);
    const question = sentence.endsWith('?') || QUESTION_START.test(sentence);
    const flow = question && (FLOW.test(sentence) || HOW_DOES.test(sentence));
    for (const path of paths)
      add({ title: path, source: sentence, terms: [], words: [], paths: [path], flow: false, exact: true });
    for (const name of names) {
      const found = contentTerms(name, projectWords);
      if (found.terms.length) add({ title: name, source: sentence, ...found, paths: [], flow, exact: true });
    }
    const withoutPaths = paths.reduce((rest, path) => rest.split(path).join(' '), sentence);
    const found = contentTerms(withoutPaths, projectWords);
    if (found.terms.length === 0) continue;
    add({
      title: title(question ? sentence : names.length === 1 ? names[0]! : sentence),
      source: sentence,
      ...found,
      paths: [],
      flow,
      exact: false,
    });
  }
  const specific = topics.slice(0, MAX_TOPICS);
  const asksOverview = words(text).some((w) => OVERVIEW_WORDS.has(w));
  return { topics: specific, overview: specific.length === 0 || asksOverview || !RESTRICTIVE.test(text) };
}
