import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';

/**
 * `<workspace>/.fed/learning-log.jsonl`: one JSON object per line, appended by a deliverable team while it
 * scans (docs/design/spec.md §2.5). The spec leaves the allowed categories and confidence levels open; these are ours,
 * chosen so a reader (or the monitor) can group findings by what they are about and how far to trust them.
 */
export const LEARNING_LOG_FILE = 'learning-log.jsonl';

/** What a finding is about. */
export const LEARNING_CATEGORIES = [
  /** Layout of the codebase: folders, modules, sizes, where things live. */
  'structure',
  /** Languages, frameworks, build tools and manifests (package.json, pyproject.toml, go.mod, Cargo.toml). */
  'stack',
  /** Where execution starts: binaries, main modules, scripts, services. */
  'entry-point',
  /** How modules depend on each other and on external packages. */
  'dependency',
  /** Where the tests are, what runs them, what they cover. */
  'testing',
  /** Places that need attention: TODO/FIXME clusters, very large files, complexity. */
  'hotspot',
  /** A pattern the code follows: naming, error handling, file organisation, style. */
  'convention',
  /** Something that could not be found, read or determined; a limit of the study. */
  'gap',
] as const;
export const learningCategorySchema = z.enum(LEARNING_CATEGORIES);
export type LearningCategory = z.infer<typeof learningCategorySchema>;

/** How far to trust a finding. */
export const LEARNING_CONFIDENCE_LEVELS = [
  /** Read directly from a file or counted: a manifest field, a line count, a file that exists. */
  'high',
  /** Inferred from names, conventions or a heuristic scan (an import scan, a test-runner guess). */
  'medium',
  /** A guess that a person should check before relying on it. */
  'low',
] as const;
export const learningConfidenceSchema = z.enum(LEARNING_CONFIDENCE_LEVELS);
export type LearningConfidence = z.infer<typeof learningConfidenceSchema>;

export const learningEntrySchema = builtOnFirstUse(() =>
  z
    .strictObject({
      timestamp: isoTimestamp,
      /** The team's domain (its registry `domain`). */
      domain: teamIdSchema,
      category: learningCategorySchema,
      content: nonEmptyString,
      tags: z.array(nonEmptyString),
      confidence: learningConfidenceSchema,
    })
    .meta({
      title: 'LearningLogEntry',
      description: `One line of <workspace>/.fed/${LEARNING_LOG_FILE}: a finding of a deliverable team (spec §2.5)`,
    }),
);
export type LearningEntry = z.infer<typeof learningEntrySchema>;
