import { kindOf, planMission, type MissionKind, type MissionTopic } from './mission-plan.js';

/**
 * The plan of the document, made from the mission before anything is scanned (docs/design/spec.md §3.1 "preparing"):
 * the topics the mission asks about, each a section of its own, first; then — when the mission asks for
 * it or leaves room — the general overview, its sections in the order of the report template
 * (skills/report-templates.md) that fits the mission's wording. The sources are the top-level files and
 * folders the scan will study.
 */
export type DocumentKind = MissionKind;

export type SectionId =
  | 'findings'
  | 'how-to-run'
  | 'start-reading'
  | 'packages'
  | 'layout'
  | 'entry-points'
  | 'languages'
  | 'dependencies'
  | 'declared-dependencies'
  | 'tests'
  | 'hotspots'
  | 'largest-files';

export interface Outline {
  kind: DocumentKind;
  /** What the mission asks about, one section each, before the overview. */
  topics: MissionTopic[];
  /** The overview's sections; empty when the mission restricts itself to its topics. */
  sections: SectionId[];
  /** The mission asks for the packages and how they depend on each other (MissionPlan.packageGraph). */
  packageGraph: boolean;
  sources: string[];
}

const ORDER: Record<Exclude<DocumentKind, 'flow' | 'reference'>, SectionId[]> = {
  architecture: [
    'findings',
    'packages',
    'layout',
    'entry-points',
    'start-reading',
    'dependencies',
    'declared-dependencies',
    'languages',
    'how-to-run',
    'tests',
    'hotspots',
    'largest-files',
  ],
  audit: [
    'findings',
    'hotspots',
    'largest-files',
    'tests',
    'declared-dependencies',
    'dependencies',
    'packages',
    'layout',
    'languages',
    'entry-points',
    'how-to-run',
  ],
  overview: [
    'findings',
    'how-to-run',
    'start-reading',
    'packages',
    'layout',
    'entry-points',
    'languages',
    'dependencies',
    'declared-dependencies',
    'tests',
    'hotspots',
    'largest-files',
  ],
  // A newcomer's guide: how to build, test and run it first, then where to start reading.
  onboarding: [
    'how-to-run',
    'start-reading',
    'findings',
    'entry-points',
    'layout',
    'tests',
    'packages',
    'languages',
    'dependencies',
    'declared-dependencies',
    'hotspots',
    'largest-files',
  ],
};

/** A flow explanation is followed by the general overview; a reference by the architecture's sections. */
const sectionsOf = (kind: DocumentKind): SectionId[] =>
  ORDER[kind === 'flow' ? 'overview' : kind === 'reference' ? 'architecture' : kind];

/**
 * The kind of document is the mission plan's (the subject decides first, see planMission).
 * `projectName` is the codebase's name (a mission naming it is about the whole codebase).
 */
export function planOutline(
  mission: { subject: string; body: string },
  sources: readonly string[],
  projectName: string,
): Outline {
  const plan = planMission(mission, projectName);
  const kind = plan.kind;
  return {
    kind,
    topics: plan.topics,
    sections: plan.overview ? sectionsOf(kind) : [],
    sources: [...sources],
    packageGraph: plan.packageGraph,
  };
}

/**
 * The outline with the general overview, whatever the mission restricted: what a fix attempt writes when
 * fed refused the narrower document (a deliverableSchema may ask for more sections, a diagram, more words).
 */
export function withOverview(outline: Outline): Outline {
  return outline.sections.length ? outline : { ...outline, sections: sectionsOf(outline.kind) };
}

/**
 * The outline once the codebase is searched, with the topics that stand (see MissionSearch.answers): a
 * mission left with none asks for the general document, and its kind no longer comes from them.
 */
export function standingOutline(
  outline: Outline,
  mission: { subject: string; body: string },
  topics: readonly MissionTopic[],
): Outline {
  if (topics.length === outline.topics.length && topics.every((t, i) => t === outline.topics[i])) return outline;
  const kind = kindOf(mission, topics);
  return {
    ...outline,
    kind,
    topics: [...topics],
    sections: outline.sections.length || (topics.length === 0 && !outline.packageGraph) ? sectionsOf(kind) : [],
  };
}
