import { planMission, type MissionTopic } from './mission-plan.js';

/**
 * The plan of the document, made from the mission before anything is scanned (docs/design/spec.md §3.1 "preparing"):
 * the topics the mission asks about, each a section of its own, first; then — when the mission asks for
 * it or leaves room — the general overview, its sections in the order of the report template
 * (skills/report-templates.md) that fits the mission's wording. The sources are the top-level files and
 * folders the scan will study.
 */
export type DocumentKind = 'architecture' | 'analysis' | 'audit';

export type SectionId =
  | 'findings'
  | 'how-to-run'
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
  sources: string[];
}

const KEYWORDS: Record<Exclude<DocumentKind, 'analysis'>, readonly string[]> = {
  audit: [
    'audit',
    'review',
    'risk',
    'risks',
    'quality',
    'debt',
    'security',
    'hotspot',
    'hotspots',
    'todo',
    'todos',
    'problems',
    'issues',
  ],
  architecture: [
    'architecture',
    'architectural',
    'design',
    'structure',
    'components',
    'modules',
    'dependencies',
    'dependency',
  ],
};

const ORDER: Record<DocumentKind, SectionId[]> = {
  architecture: [
    'findings',
    'packages',
    'layout',
    'entry-points',
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
  analysis: [
    'findings',
    'how-to-run',
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
};

const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });

function kindOf(text: string): DocumentKind | undefined {
  const words = new Set(
    [...wordSegmenter.segment(text.toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment),
  );
  if (KEYWORDS.audit.some((k) => words.has(k))) return 'audit';
  if (KEYWORDS.architecture.some((k) => words.has(k))) return 'architecture';
  return undefined;
}

/**
 * The subject says what is wanted more reliably than the body, so it decides the template first.
 * `projectName` is the codebase's name (a mission naming it is about the whole codebase).
 */
export function planOutline(
  mission: { subject: string; body: string },
  sources: readonly string[],
  projectName: string,
): Outline {
  const kind = kindOf(mission.subject) ?? kindOf(mission.body) ?? 'analysis';
  const plan = planMission(mission, projectName);
  return { kind, topics: plan.topics, sections: plan.overview ? ORDER[kind] : [], sources: [...sources] };
}

/**
 * The outline with the general overview, whatever the mission restricted: what a fix attempt writes when
 * fed refused the narrower document (a deliverableSchema may ask for more sections, a diagram, more words).
 */
export function withOverview(outline: Outline): Outline {
  return outline.sections.length ? outline : { ...outline, sections: ORDER[outline.kind] };
}
