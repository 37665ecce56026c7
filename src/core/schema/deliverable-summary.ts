import { z } from 'zod';

/**
 * The structural summary of a deliverable (`fed deliverable check --json` prints it as `summary`). For a
 * Markdown deliverable this — not the Markdown text — is what `deliverableSchema` (docs/design/spec.md §2.3) validates,
 * so a federation can demand, say, at least five sections or a diagram; `fed schema deliverable-summary`
 * prints it as JSON Schema to start from. Keys are snake_case like the metrics they feed (docs/design/spec.md §6).
 */
const line = z.int().positive().meta({ description: '1-based line in the file' });

export const deliverableSummarySchema = z
  .strictObject({
    /** `json` for a `.json` deliverable, whose summary only has `size_bytes` filled in. */
    format: z.enum(['markdown', 'json']),
    /** Text of the one level-1 heading, or null when there is none (or several). */
    title: z.string().nullable(),
    /** Every heading below the title (levels 2–6), in order; `anchor` is its GitHub link target. */
    sections: z.array(z.strictObject({ level: z.int().min(2).max(6), title: z.string(), anchor: z.string(), line })),
    /** Every code block, diagrams included; `language` is the fence's tag, null when it has none. */
    code_blocks: z.array(z.strictObject({ language: z.string().nullable(), line })),
    /** Code blocks tagged `mermaid` or `plantuml`; `type` is the diagram type its first line declares. */
    diagrams: z.array(z.strictObject({ language: z.enum(['mermaid', 'plantuml']), type: z.string().nullable(), line })),
    /** Words of prose: headings, paragraphs, lists and tables; code blocks and HTML are not counted. */
    word_count: z.int().nonnegative(),
    size_bytes: z.int().nonnegative(),
  })
  .meta({
    title: 'DeliverableSummary',
    description:
      'Structural summary of a deliverable, as printed by fed deliverable check --json and validated by deliverableSchema',
  });
export type DeliverableSummary = z.infer<typeof deliverableSummarySchema>;
