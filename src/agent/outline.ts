/**
 * The plan of the document, made from the mission before anything is scanned (spec §3.1 "preparing"):
 * which of the report templates (skills/report-templates.md) fits the mission's wording, and so which
 * sections come first. The sources are the top-level files and folders the scan will study.
 */
export type DocumentKind = 'architecture' | 'analysis' | 'audit';

export type SectionId = 'findings' | 'how-to-run' | 'layout' | 'entry-points' | 'languages' | 'dependencies' | 'tests' | 'hotspots' | 'largest-files';

export interface Outline {
  kind: DocumentKind;
  sections: SectionId[];
  sources: string[];
}

const KEYWORDS: Record<Exclude<DocumentKind, 'analysis'>, readonly string[]> = {
  audit: ['audit', 'review', 'risk', 'risks', 'quality', 'debt', 'security', 'hotspot', 'hotspots', 'todo', 'todos', 'problems', 'issues'],
  architecture: ['architecture', 'architectural', 'design', 'structure', 'components', 'modules', 'dependencies', 'dependency'],
};

const ORDER: Record<DocumentKind, SectionId[]> = {
  architecture: ['findings', 'layout', 'entry-points', 'dependencies', 'languages', 'how-to-run', 'tests', 'hotspots', 'largest-files'],
  audit: ['findings', 'hotspots', 'largest-files', 'tests', 'dependencies', 'layout', 'languages', 'entry-points', 'how-to-run'],
  analysis: ['findings', 'how-to-run', 'layout', 'entry-points', 'languages', 'dependencies', 'tests', 'hotspots', 'largest-files'],
};

const wordSegmenter = new Intl.Segmenter('en', { granularity: 'word' });

function kindOf(text: string): DocumentKind | undefined {
  const words = new Set([...wordSegmenter.segment(text.toLowerCase())].filter((s) => s.isWordLike).map((s) => s.segment));
  if (KEYWORDS.audit.some((k) => words.has(k))) return 'audit';
  if (KEYWORDS.architecture.some((k) => words.has(k))) return 'architecture';
  return undefined;
}

/** The subject says what is wanted more reliably than the body, so it decides first. */
export function planOutline(mission: { subject: string; body: string }, sources: readonly string[]): Outline {
  const kind = kindOf(mission.subject) ?? kindOf(mission.body) ?? 'analysis';
  return { kind, sections: ORDER[kind], sources: [...sources] };
}
