import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from 'fed';
import { loadJsonSchemaValidator } from 'fed/testing';
import {
  checkDeliverable,
  checkMarkdownText,
  DeliverableRejectedError,
  MAX_DELIVERABLE_BYTES,
} from '../../../src/engine/deliverable/check-deliverable.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * checkDeliverable on real files, in process: a JSON deliverable, a schema, a file that cannot be read, and
 * the CLI's refusal (the e2e suite runs the same through the built CLI).
 */

const GOOD_MARKDOWN = `# Title

One sentence of summary. A second sentence of it.

## Next steps

Read the code.
`;

function fileWith(name: string, text: string | Buffer): string {
  const dir = tempDir();
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('checkDeliverable: a .json deliverable is parsed, and validated against the schema as it is', () => {
  const schema = () =>
    fileWith(
      'schema.json',
      JSON.stringify({ type: 'object', required: ['title'], properties: { title: { type: 'string' } } }),
    );

  it('valid JSON with no schema passes, its summary only its size', () => {
    const path = fileWith('out.JSON', '{"title": "é"}');
    const check = checkDeliverable(path);
    expect(check).toEqual({
      file: path,
      ok: true,
      violations: [],
      summary: {
        format: 'json',
        title: null,
        sections: [],
        code_blocks: [],
        diagrams: [],
        word_count: 0,
        size_bytes: 15,
      },
    });
  });

  it('broken JSON is one violation at its line and column', () => {
    const check = checkDeliverable(fileWith('out.json', '{\n  "title": }'));
    expect(check.ok).toBe(false);
    expect(check.violations).toEqual([
      { line: 2, rule: 'json', message: expect.stringMatching(/^not valid JSON \(column \d+: .+\)$/) },
    ]);
  });

  it('the schema is applied to the whole document, each problem a violation on line 1, named by its label', () => {
    const path = fileWith('out.json', '{"name": 1}');
    expect(checkDeliverable(path, { schemaPath: schema() }).violations).toEqual([
      {
        line: 1,
        rule: 'schema',
        message: "does not match deliverableSchema: (root): must have required property 'title'",
      },
    ]);
    expect(checkDeliverable(path, { schemaPath: schema(), schemaLabel: '--schema' }).violations[0]!.message).toMatch(
      /^does not match --schema: /,
    );
    expect(checkDeliverable(fileWith('ok.json', '{"title": "t"}'), { schemaPath: schema() }).ok).toBe(true);
  });
});

describe('checkDeliverable: Markdown, its summary validated against the schema', () => {
  it('a summary the schema refuses is a violation naming the summary field', () => {
    const schema = fileWith(
      's.json',
      JSON.stringify({ type: 'object', properties: { diagrams: { type: 'array', minItems: 2 } } }),
    );
    const check = checkDeliverable(fileWith('doc.md', GOOD_MARKDOWN), {
      schemaPath: schema,
      schemaLabel: 'the schema',
    });
    expect(check.violations).toEqual([
      {
        line: 1,
        rule: 'schema',
        message: 'does not match the schema: summary.diagrams: must NOT have fewer than 2 items',
      },
    ]);
    expect(check.ok).toBe(false);
    expect(check.summary.format).toBe('markdown');
  });

  it('checkMarkdownText with a validator and no label names deliverableSchema', () => {
    const schema = fileWith('s.json', JSON.stringify({ type: 'object', required: ['nothing'] }));
    const validate = loadJsonSchemaValidator(schema, 'x');
    expect(checkMarkdownText(GOOD_MARKDOWN, validate).violations[0]).toEqual({
      line: 1,
      rule: 'schema',
      message: "does not match deliverableSchema: summary: must have required property 'nothing'",
    });
  });

  it('the file as resolved is the one reported and checked', () => {
    const path = fileWith('doc.md', GOOD_MARKDOWN);
    const check = checkDeliverable(join(path, '..', '.', 'doc.md'));
    expect(check.file).toBe(path);
  });

  it('a Markdown file over its limits is refused by its path', () => {
    const path = fileWith('doc.md', `# T\n\n${'['.repeat(40)}\n`);
    expect(() => checkDeliverable(path)).toThrow(
      new InvalidInputError(
        `${path} is refused before it is checked: line 3 opens 33 nested "[", over the limit of 32`,
      ),
    );
  });
});

describe('checkDeliverable: a deliverable that cannot be read is bad input', () => {
  it('a missing file', () => {
    const path = join(tempDir(), 'nope.md');
    expect(() => checkDeliverable(path)).toThrow(
      new InvalidInputError(`cannot read deliverable ${path}: no such file`),
    );
  });

  it('a folder, or a file over the bound, names its problem', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'dir.md'));
    expect(() => checkDeliverable(join(dir, 'dir.md'))).toThrow(/^cannot read deliverable .*dir\.md: .+/);
    const big = fileWith('big.json', Buffer.alloc(MAX_DELIVERABLE_BYTES + 1, 0x20));
    expect(() => checkDeliverable(big)).toThrow(new RegExp(`^cannot read deliverable ${big}: .+`));
  });
});

describe('DeliverableRejectedError: the CLI refusal', () => {
  it('counts the violations, one in the singular, and keeps the check', () => {
    const one = checkDeliverable(fileWith('a.json', '{'));
    const error = new DeliverableRejectedError(one, 'a.json');
    expect(error.code).toBe('DELIVERABLE_INVALID');
    expect(error.message).toBe(
      'a.json does not meet the documentation standards: 1 violation (the skill documentation-standards.md explains each rule)',
    );
    expect(error.check).toBe(one);
    const two = { ...one, violations: [...one.violations, ...one.violations] };
    expect(new DeliverableRejectedError(two, 'b.md').message).toMatch(
      /^b\.md does not meet the documentation standards: 2 violations \(/,
    );
  });
});
