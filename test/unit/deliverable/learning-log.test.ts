import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, learningEntrySchema, type LearningEntry } from 'fed';
import { appendLearningEntries } from '../../../src/engine/deliverable/learning-log.js';
import { jsonSchemaFor } from 'fed/testing';
import { LEARNING_CATEGORIES, LEARNING_CONFIDENCE_LEVELS } from '../../../src/core/schema/learning-log.js';
import { tempDir } from '../../helpers/temp-dir.js';

const entry = (content: string, overrides: Partial<LearningEntry> = {}): LearningEntry => ({
  timestamp: '2026-01-31T12:00:00.000Z',
  domain: 'docs',
  category: 'entry-point',
  content,
  tags: ['cli'],
  confidence: 'high',
  ...overrides,
});

const readLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => learningEntrySchema.parse(JSON.parse(l)));

describe('learning log (docs/design/spec.md §2.5)', () => {
  it('declares its categories and confidence levels in the schema', () => {
    expect(LEARNING_CATEGORIES).toEqual([
      'structure',
      'stack',
      'entry-point',
      'dependency',
      'testing',
      'hotspot',
      'convention',
      'gap',
    ]);
    expect(LEARNING_CONFIDENCE_LEVELS).toEqual(['high', 'medium', 'low']);
    const schema = jsonSchemaFor('learning-entry') as {
      required: string[];
      properties: { category: { enum: string[] } };
    };
    expect(schema.required.sort()).toEqual(['category', 'confidence', 'content', 'domain', 'tags', 'timestamp']);
    expect(schema.properties.category.enum).toEqual([...LEARNING_CATEGORIES]);
  });

  it('appends one JSON line per entry, keeping what is there, creating the folder', () => {
    const file = join(tempDir(), '.fed', 'learning-log.jsonl');
    appendLearningEntries(file, [entry('first')]);
    appendLearningEntries(file, [entry('second'), entry('third', { category: 'gap', confidence: 'low', tags: [] })]);
    expect(readLines(file).map((e) => e.content)).toEqual(['first', 'second', 'third']);
    expect(readFileSync(file, 'utf8').endsWith('}\n')).toBe(true);
  });

  it('refuses an invalid entry and writes none of the batch', () => {
    const dir = tempDir();
    const file = join(dir, 'log.jsonl');
    writeFileSync(file, '');
    const bad = { ...entry('x'), category: 'rumour' } as unknown as LearningEntry;
    expect(() => appendLearningEntries(file, [entry('fine'), bad])).toThrow(InvalidInputError);
    expect(() => appendLearningEntries(file, [entry('fine'), bad])).toThrow(
      /learning-log entry 2 for .*log\.jsonl is invalid: category: expected one of "structure"/,
    );
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('an empty batch writes nothing, not even the file', () => {
    const file = join(tempDir(), 'log.jsonl');
    appendLearningEntries(file, []);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});
