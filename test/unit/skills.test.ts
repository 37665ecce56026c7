import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation } from 'fed';
import {
  bundledSkillsDir,
  checkMarkdownText,
  DEFAULT_PLAYBOOK_SKILL,
  federationPaths,
  lifecycleFor,
  seedSkills,
} from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

const SKILLS = ['diagram-tools.md', 'documentation-standards.md', 'domain-playbook.md', 'report-templates.md'];

/** The front matter of a skill: `tags: [a, b]` and `category: x` between `---` lines (docs/design/spec.md §2.6). */
function frontMatter(text: string): { tags: string[]; category: string } {
  const lines = text.split('\n');
  expect(lines[0]).toBe('---');
  const end = lines.indexOf('---', 1);
  expect(end).toBeGreaterThan(1);
  const fields = Object.fromEntries(
    lines.slice(1, end).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const tags = (fields.tags ?? '')
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return { tags, category: fields.category ?? '' };
}

describe('bundled skills (docs/design/spec.md §2.6)', () => {
  it('ships the four skills, the default playbook among them, each with tags and a category', () => {
    expect(readdirSync(bundledSkillsDir()).sort()).toEqual(SKILLS);
    expect(SKILLS).toContain(`${DEFAULT_PLAYBOOK_SKILL}.md`);
    for (const name of SKILLS) {
      const { tags, category } = frontMatter(readFileSync(join(bundledSkillsDir(), name), 'utf8'));
      expect(tags.length, name).toBeGreaterThan(0);
      expect(category, name).not.toBe('');
    }
  });

  it('follow the documentation standards they teach (front matter aside)', () => {
    for (const name of SKILLS) {
      const text = readFileSync(join(bundledSkillsDir(), name), 'utf8');
      const body = text.slice(text.indexOf('\n---\n', 4) + '\n---\n'.length);
      expect(checkMarkdownText(body).violations, name).toEqual([]);
    }
  });

  it('report templates cover architecture, analysis and audit; diagram tools cover Mermaid and PlantUML', () => {
    const templates = readFileSync(join(bundledSkillsDir(), 'report-templates.md'), 'utf8');
    for (const heading of ['## Architecture document', '## Analysis report', '## Audit report'])
      expect(templates).toContain(heading);
    const diagrams = readFileSync(join(bundledSkillsDir(), 'diagram-tools.md'), 'utf8');
    expect(diagrams).toContain('```mermaid');
    expect(diagrams).toContain('```plantuml');
  });

  it('the playbook names every event of the deliverable lifecycle an agent sends', () => {
    const playbook = readFileSync(join(bundledSkillsDir(), 'domain-playbook.md'), 'utf8');
    const agentEvents = ['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY', 'DOCUMENT_WRITTEN', 'FAIL'];
    const machineEvents: readonly string[] = lifecycleFor('deliverable')?.events ?? [];
    for (const event of agentEvents) {
      expect(machineEvents).toContain(event);
      expect(playbook).toContain(`fed event ${event}`);
    }
  });
});

describe('seeding .fed/skills', () => {
  it('fed init creates every skill and reports them; re-running creates nothing', () => {
    const root = tempDir();
    const first = initFederation(root, {}, {});
    const skills = federationPaths(root).skills;
    expect(first.created).toEqual(expect.arrayContaining(SKILLS.map((name) => join(skills, name))));
    for (const name of SKILLS)
      expect(readFileSync(join(skills, name), 'utf8')).toBe(readFileSync(join(bundledSkillsDir(), name), 'utf8'));
    expect(initFederation(root, {}, {}).created).toEqual([]);
  });

  it('never overwrites a skill that exists, edited or not', () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const edited = join(federationPaths(root).skills, 'domain-playbook.md');
    writeFileSync(edited, '# Our own playbook\n');
    expect(seedSkills(federationPaths(root).skills)).toEqual([]);
    expect(readFileSync(edited, 'utf8')).toBe('# Our own playbook\n');
  });
});
