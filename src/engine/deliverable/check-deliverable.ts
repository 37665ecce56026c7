import { extname, resolve } from 'node:path';
import { FedError, InvalidInputError } from '../../core/errors.js';
import { parseJsonText } from '../../core/json-text.js';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';
import type { DeliverableSummary } from '../../core/schema/deliverable-summary.js';
import { type DocumentationRule } from './documentation-rules.js';
import type { AnalysedMarkdown } from './analyse-markdown.js';
import { factsOf, markdownFacts, type MarkdownFacts } from './markdown-facts.js';
import { assertMarkdownWithinLimits } from './markdown-limits.js';
import { loadJsonSchemaValidator, type JsonSchemaValidator } from './json-schema-validator.js';

/** A documentation rule, `json` (a `.json` deliverable that does not parse) or `schema` (deliverableSchema). */
export type ViolationRule = DocumentationRule | 'json' | 'schema';

export interface DeliverableViolation {
  /** 1-based; 1 when the violation is about the document as a whole (a schema problem). */
  line: number;
  rule: ViolationRule;
  message: string;
}

export interface DeliverableCheck {
  file: string;
  ok: boolean;
  violations: DeliverableViolation[];
  summary: DeliverableSummary;
}

export interface CheckDeliverableOptions {
  /** A JSON Schema file (config `deliverableSchema`, resolved against the federation root by the caller). */
  schemaPath?: string;
  /** Where the schema path came from, for messages (default "deliverableSchema"). */
  schemaLabel?: string;
}

/** The CLI's refusal for a deliverable with violations (exit 2); the check itself never throws for them. */
export class DeliverableRejectedError extends FedError {
  readonly check: DeliverableCheck;

  constructor(check: DeliverableCheck, shownAs: string) {
    const count = check.violations.length;
    super(
      'DELIVERABLE_INVALID',
      `${shownAs} does not meet the documentation standards: ${count} violation${count === 1 ? '' : 's'} (the skill documentation-standards.md explains each rule)`,
    );
    this.check = check;
  }
}

function schemaViolations(
  validate: JsonSchemaValidator | undefined,
  value: unknown,
  at: PropertyKey[],
  label: string,
): DeliverableViolation[] {
  return (validate?.(value, at) ?? []).map((problem) => ({
    line: 1,
    rule: 'schema',
    message: `does not match ${label}: ${problem}`,
  }));
}

/**
 * Check Markdown text against the documentation standards (and, given a validator, its structural
 * summary against a JSON Schema). Pure: the built-in agent checks its document before writing it.
 */
export function checkMarkdownText(
  text: string,
  validate?: JsonSchemaValidator,
  schemaLabel = 'deliverableSchema',
  file = 'the Markdown',
): Omit<DeliverableCheck, 'file'> {
  assertMarkdownWithinLimits(text, file);
  return verdict(markdownFacts(text), validate, schemaLabel);
}

/**
 * checkMarkdownText's check, without a schema, of a document analysed already (the built-in agent's,
 * insert-blocks.ts): the same verdict, bounds included, without parsing it again.
 */
export function checkAnalysedMarkdown(doc: AnalysedMarkdown, file = 'the Markdown'): Omit<DeliverableCheck, 'file'> {
  assertMarkdownWithinLimits(doc.text, file);
  return verdict(factsOf(doc), undefined, 'deliverableSchema');
}

function verdict(
  { ruleViolations, summary }: MarkdownFacts,
  validate: JsonSchemaValidator | undefined,
  schemaLabel: string,
): Omit<DeliverableCheck, 'file'> {
  const violations: DeliverableViolation[] = [
    ...ruleViolations,
    ...schemaViolations(validate, summary, ['summary'], schemaLabel),
  ];
  return { ok: violations.length === 0, violations, summary };
}

function checkJsonText(
  text: string,
  validate: JsonSchemaValidator | undefined,
  schemaLabel: string,
): Omit<DeliverableCheck, 'file'> {
  const summary: DeliverableSummary = {
    format: 'json',
    title: null,
    sections: [],
    code_blocks: [],
    diagrams: [],
    word_count: 0,
    size_bytes: Buffer.byteLength(text, 'utf8'),
  };
  const json = parseJsonText(text);
  const violations: DeliverableViolation[] = json.ok
    ? schemaViolations(validate, json.value, [], schemaLabel)
    : [{ line: json.line, rule: 'json', message: `not valid JSON (column ${json.column}: ${json.message})` }];
  return { ok: violations.length === 0, violations, summary };
}

/** What is read of a deliverable at most (a `.json` one included); Markdown has a lower bound before parsing. */
export const MAX_DELIVERABLE_BYTES = 4 * 1024 * 1024;

function readDeliverable(file: string): string {
  let read;
  try {
    read = readFileBounded(file, { maxBytes: MAX_DELIVERABLE_BYTES });
  } catch {
    throw new InvalidInputError(`cannot read deliverable ${file}: no such file`);
  }
  if (!read.ok) throw new InvalidInputError(`cannot read deliverable ${file}: ${read.problem}`);
  return read.bytes.toString('utf8');
}

/**
 * `fed deliverable check` as a library call (the launcher runs it before accepting `complete`). A `.json`
 * deliverable is parsed and validated against the schema as it is; anything else is Markdown: checked
 * against the documentation rules, and its structural summary validated against the schema.
 */
export function checkDeliverable(file: string, options: CheckDeliverableOptions = {}): DeliverableCheck {
  const path = resolve(file);
  const label = options.schemaLabel ?? 'deliverableSchema';
  const validate = options.schemaPath === undefined ? undefined : loadJsonSchemaValidator(options.schemaPath, label);
  const text = readDeliverable(path);
  const result =
    extname(path).toLowerCase() === '.json'
      ? checkJsonText(text, validate, label)
      : checkMarkdownText(text, validate, label, path);
  return { file: path, ...result };
}
