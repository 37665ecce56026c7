import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { FIXTURES_DIR } from '../helpers/fixture-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = (name: string) => join(FIXTURES_DIR, 'deliverables', name);

/** A folder holding copies of fixtures, so paths print short and relative. */
function withFixtures(...names: string[]): string {
  const dir = tempDir();
  for (const name of names) copyFileSync(fixture(name), join(dir, name));
  return dir;
}

describe('fed deliverable check', () => {
  it('exits 0 on a clean document and prints its shape', async () => {
    const dir = withFixtures('good.md');
    const result = await runFed(['deliverable', 'check', 'good.md'], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^good\.md: ok — \d+ words, 6 sections, 3 code blocks, 1 diagrams\n$/);
  });

  it('exits 2 and prints every violation as file:line: rule: message', async () => {
    const dir = withFixtures('star-list.md');
    writeFileSync(join(dir, 'two.md'), 'Title\n=====\n\nOne sentence.\n');
    const star = await runFed(['deliverable', 'check', 'star-list.md'], { cwd: dir });
    expect(star.code).toBe(2);
    expect(star.stdout).toBe('star-list.md:8: list-marker: bullet list written with "*" (2 items): use "-"\n');
    expect(star.stderr).toBe(
      'fed: star-list.md does not meet the documentation standards: 1 violation (the skill documentation-standards.md explains each rule)\n',
    );
    const two = await runFed(['deliverable', 'check', 'two.md'], { cwd: dir });
    expect(
      two.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(': ')[0] + ': ' + l.split(': ')[1]),
    ).toEqual(['two.md:1: atx-heading', 'two.md:4: summary', 'two.md:4: next-steps']);
  });

  it('--json prints {file, ok, violations, summary}, with the same exit codes', async () => {
    const dir = withFixtures('good.md', 'no-next-steps.md');
    const good = await runFed(['deliverable', 'check', 'good.md', '--json'], { cwd: dir });
    expect(good.code).toBe(0);
    const parsed = JSON.parse(good.stdout) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['file', 'ok', 'violations', 'summary']);
    expect(parsed).toMatchObject({
      file: join(dir, 'good.md'),
      ok: true,
      violations: [],
      summary: { format: 'markdown', title: 'Signal delivery in the payments federation' },
    });
    const bad = await runFed(['deliverable', 'check', 'no-next-steps.md', '--json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, violations: [{ line: 17, rule: 'next-steps' }] });
  });

  it('validates against deliverableSchema from the config of the federation it runs in (relative to its root)', async () => {
    const root = tempDir();
    expect((await runFed(['init'], { cwd: root })).code).toBe(0);
    mkdirSync(join(root, 'schemas'));
    writeFileSync(
      join(root, 'schemas', 'deliverable.json'),
      JSON.stringify({ type: 'object', properties: { diagrams: { type: 'array', minItems: 2 } } }),
    );
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ deliverableSchema: 'schemas/deliverable.json' }),
    );
    const docs = join(root, 'docs');
    mkdirSync(docs);
    copyFileSync(fixture('good.md'), join(docs, 'good.md'));
    const result = await runFed(['deliverable', 'check', 'good.md'], { cwd: docs });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      `good.md:1: schema: does not match deliverableSchema (schemas/deliverable.json) in ${join(root, 'federate.config.json')}: summary.diagrams: must NOT have fewer than 2 items\n`,
    );
    // --schema takes precedence; the schema fed prints for the summary accepts any well-formed summary.
    const printed = await runFed(['schema', 'deliverable-summary']);
    writeFileSync(join(root, 'summary.schema.json'), printed.stdout);
    expect(
      (await runFed(['deliverable', 'check', 'good.md', '--schema', '../summary.schema.json'], { cwd: docs })).code,
    ).toBe(0);
  });

  it('a missing file, or a configured schema that does not exist, is bad input (exit 2) named in the message', async () => {
    const dir = tempDir();
    const missing = await runFed(['deliverable', 'check', 'deliverable.md'], { cwd: dir });
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toBe(`fed: cannot read deliverable ${join(dir, 'deliverable.md')}: no such file\n`);
    expect((await runFed(['init'], { cwd: dir })).code).toBe(0);
    writeFileSync(join(dir, 'federate.config.json'), JSON.stringify({ deliverableSchema: 'nope.json' }));
    copyFileSync(fixture('good.md'), join(dir, 'good.md'));
    const noSchema = await runFed(['deliverable', 'check', 'good.md'], { cwd: dir });
    expect(noSchema.code).toBe(2);
    expect(noSchema.stderr).toMatch(
      /^fed: deliverableSchema \(nope\.json\) in .*federate\.config\.json: cannot read the JSON Schema .*nope\.json \(ENOENT\); fix the path or create the file\n$/,
    );
  });
});
