import type { DeliverableSummary } from '../../core/schema/deliverable-summary.js';
import { sha256 } from '../../infra/crypto/sha256.js';
import { type AnalysedMarkdown, analyseMarkdown, summariseMarkdown } from './analyse-markdown.js';
import { checkDocumentationRules, type RuleViolation } from './documentation-rules.js';
import { plainText } from './parse-markdown.js';

/** What fed reads off a Markdown document: the documentation rules' verdict, its summary, title and lead. */
export interface MarkdownFacts {
  ruleViolations: RuleViolation[];
  summary: DeliverableSummary;
  /** The first level-1 heading's text. */
  title: string | null;
  /** The paragraph right after the title, as one line of plain text. */
  lead: string | null;
}

/**
 * Documents read lately, by the SHA-256 of their text: a launcher reads each team's deliverable three
 * times — judging DOCUMENT_WRITTEN, the completion report to meta right after, the federation report at
 * the end of `fed run` — and parsing was most of its CPU per team. The facts are a pure function of the
 * text, which every caller reads afresh, so a document that changed is parsed again. Small records only
 * (no syntax tree), and a bounded number of them.
 */
const remembered = new Map<string, MarkdownFacts>();
const REMEMBERED_DOCUMENTS = 64;

/** The facts of a document already analysed. */
export function factsOf(doc: AnalysedMarkdown): MarkdownFacts {
  const titleIndex = doc.tree.children.findIndex((n) => n.type === 'heading' && n.depth === 1);
  const next = titleIndex === -1 ? undefined : doc.tree.children[titleIndex + 1];
  return {
    ruleViolations: checkDocumentationRules(doc),
    summary: summariseMarkdown(doc, Buffer.byteLength(doc.text, 'utf8')),
    title: doc.headings.find((h) => h.level === 1)?.title ?? null,
    lead: next?.type === 'paragraph' ? plainText(next).replace(/\s+/g, ' ').trim() : null,
  };
}

/** The facts of Markdown `text`, parsed once per content; each caller gets its own copy. */
export function markdownFacts(text: string): MarkdownFacts {
  const key = sha256(text).toString('base64');
  let facts = remembered.get(key);
  if (facts) remembered.delete(key);
  else facts = factsOf(analyseMarkdown(text));
  remembered.set(key, facts);
  if (remembered.size > REMEMBERED_DOCUMENTS) remembered.delete(remembered.keys().next().value!);
  return structuredClone(facts);
}
