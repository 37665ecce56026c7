import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { checkDeliverable } from 'fed';
import { parseMarkdown } from 'fed/testing';
import { markdownFacts } from '../../../src/engine/deliverable/markdown-facts.js';
import { FIXTURES_DIR } from '../../helpers/fixture-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The parser, counted: what the launcher pays per team is how often it parses a deliverable.
vi.mock('../../../src/engine/deliverable/parse-markdown.js', async (original) => {
  const real = await original<typeof import('../../../src/engine/deliverable/parse-markdown.js')>();
  return { ...real, parseMarkdown: vi.fn(real.parseMarkdown) };
});
const parses = vi.mocked(parseMarkdown);

let made = 0;
/** A good deliverable whose title no other test's has: each test starts with a document never parsed. */
function deliverable(): string {
  const file = join(tempDir(), 'deliverable.md');
  const good = readFileSync(join(FIXTURES_DIR, 'deliverables', 'good.md'), 'utf8');
  writeFileSync(file, good.replace(/^# (.*)$/m, `# $1, copy ${++made}`));
  return file;
}

describe('a Markdown document is parsed once per content', () => {
  beforeEach(() => parses.mockClear());

  it('judging it, the completion report and the federation report parse it once', () => {
    const file = deliverable();
    const judged = checkDeliverable(file); // the judge of DOCUMENT_WRITTEN
    const reported = checkDeliverable(file); // the completion report to meta
    expect(reported).toEqual(judged);
    expect(judged.ok).toBe(true);
    expect(markdownFacts(readFileSync(file, 'utf8')).title).toBe(judged.summary.title); // the federation report
    expect(parses).toHaveBeenCalledTimes(1);
  });

  it('a document that changed is parsed again, and judged as it is now', () => {
    const file = deliverable();
    expect(checkDeliverable(file).ok).toBe(true);
    appendFileSync(file, '\n* a list item with the wrong marker\n');
    const changed = checkDeliverable(file);
    expect(changed.ok).toBe(false);
    expect(changed.violations.map((v) => v.rule)).toContain('list-marker');
    expect(parses).toHaveBeenCalledTimes(2);
  });

  it('each caller gets its own copy: changing one changes nothing for the next', () => {
    const file = deliverable();
    const first = checkDeliverable(file);
    first.summary.sections.length = 0;
    first.violations.push({ line: 1, rule: 'schema', message: 'added by a caller' });
    const second = checkDeliverable(file);
    expect(second.summary.sections.length).toBeGreaterThan(0);
    expect(second.violations).toEqual([]);
  });

  it('gives the title and the paragraph after it, as one line', () => {
    const facts = markdownFacts('# The title\n\nFirst *lead*\nline.\n\n## Next\n\nText.\n');
    expect(facts.title).toBe('The title');
    expect(facts.lead).toBe('First lead line.');
    expect(markdownFacts('Just text.\n').title).toBeNull();
  });
});
