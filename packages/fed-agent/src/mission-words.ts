/**
 * The closed classes of words a mission is phrased with, apart from its subjects. A mission is a kind of
 * document plus zero or more subjects; what is left of a sentence once these classes are taken out is
 * what the mission asks about. The classes are small and closed on purpose — grammar, the vocabulary of
 * asking for a document, words for the codebase itself, the contents of the general overview, and the
 * words that name a kind of document — so an open-ended word ("payment", "gateway", "router") is always
 * a subject, and one the codebase does not mention fails the mission honestly.
 */
export type MissionKind = 'overview' | 'architecture' | 'onboarding' | 'flow' | 'audit' | 'reference';

const set = (text: string) => new Set(text.trim().split(/\s+/));

/** Grammar: articles, pronouns, prepositions, auxiliaries, conjunctions, question words. */
export const GRAMMAR = set(`
a about above after again all also an and any are as at be been before being below between both but by can could did do does doing done
ca wo sha
each either else even every few for from further get gets got had has have having her here hers him his how however i if in into is it its
itself may me might more most much must my no nor not now of off on once one or other our ours out over own per
same shall she should so some such than that the their theirs them then there these they this those through to too under until up upon us
very via was we were what when where whether which while who whom whose why will with within without would you your yours yes etc e.g i.e
let thing things part parts way ways kind sort well just only also too anything something everything nothing
flow flows flowing travel travels passes goes reach reaches
`);

/**
 * Asking for a document: verbs of writing, reading and studying ("write", "document", "survey", "study",
 * "read-only"), politeness, the document as an object ("doc", "notes", "write-up"), its size and manner
 * ("short", "brief", "detailed") and its audience ("for new contributors").
 */
export const INSTRUCTION = set(`
please kindly thanks thank need needs want wants like help
write writes writing written document documents documenting documentation doc docs draft drafts compose produce create prepare
provide put together make makes made outline outlines sketch
explain explains explaining explanation describe describes describing description tell show shows give list cover covers covering
summarise summarize summarised summarized walkthrough tour
study studies studying survey surveys surveying read reads reading read-only readonly look looks looking see check explore exploring
investigate inspect analyse analyze analysis examine understand understanding know learn find
focus focusing detail details detailed exactly especially particular specifically
essentials basics fundamentals highlights short shorter brief briefly concise quick quickly simple simply small little full thorough comprehensive good nice clear
notes writeup write-up markdown deliverable readme
new newcomer newcomers beginner beginners reader readers developer developers contributor contributors engineer engineers maintainer
maintainers team teams people someone person anyone everyone joining user-facing human humans hire hires joiner joiners
colleague colleagues staff intern interns student students junior juniors
use used uses using
name names naming
`);

/** Words for the codebase itself: "how does the framework work" is about all of it. */
export const CODEBASE = set(`
codebase code repository repo repos project projects framework library app application software system program tool tooling source sources
work works working package packages
file files function functions method methods class classes symbol symbols
`);

/** What the general overview covers: a mission asking for these asks for the overview. */
export const OVERVIEW_CONTENT = set(`
overview architecture architectural structure structured layout laid organised organized organisation organization design designed
component components module modules dependency dependencies depend depends entry point points build builds building built run runs running
test tests testing tested install installs installation setup set start started starting getting language languages stack
hotspot hotspots todo todos risk risks quality debt audit review summary introduction intro guide onboarding general overall whole
high level high-level everything main key important reference api apis purpose purposes goal goals feature features
functionality capability capabilities behaviour behavior concept concepts idea ideas big picture gist bird birds-eye eye view
`);

/** Words naming a kind of document, strongest first: an audit of the architecture is an audit. */
const KIND_WORDS: [MissionKind, Set<string>][] = [
  [
    'audit',
    set(
      'audit audits auditing review reviews risk risks quality debt security hotspot hotspots todo todos problems issues',
    ),
  ],
  [
    'architecture',
    set(
      'architecture architectural design structure structured components modules dependencies dependency layout organised organized organisation organization',
    ),
  ],
  [
    'onboarding',
    set(
      'onboarding onboard newcomer newcomers beginner beginners contributor contributors contribute contributing started setup install guide handbook run running build building',
    ),
  ],
  ['reference', set('reference api apis exports')],
  ['overview', set('overview survey summary introduction intro tour study')],
];

/** The kind of document a text names, if it names one. */
export function kindNamed(textWords: readonly string[]): MissionKind | undefined {
  return KIND_WORDS.find(([, words]) => textWords.some((w) => words.has(w)))?.[0];
}

/** Whether a word says nothing about a subject of the codebase: it phrases the mission or names its kind. */
export function isMissionWord(word: string): boolean {
  return (
    GRAMMAR.has(word) ||
    INSTRUCTION.has(word) ||
    CODEBASE.has(word) ||
    OVERVIEW_CONTENT.has(word) ||
    KIND_WORDS.some(([, words]) => words.has(word))
  );
}
