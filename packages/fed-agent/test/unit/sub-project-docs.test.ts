import { describe, expect, it } from 'vitest';
import { writeAgentDocument } from '../helpers/agent-document.js';
import { goSessionRepo } from '../../../../test/helpers/go-session-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/** The section with this title, up to the next one of the same level. */
const sectionOf = (markdown: string, heading: string) => {
  const start = markdown.indexOf(`${heading}\n`);
  expect(start, `no "${heading}"`).not.toBe(-1);
  const level = /^#+/.exec(heading)![0];
  const end = markdown.indexOf(`\n${level} `, start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
};

describe('documents on a Go project with a web/ sub-project, an assets/ folder and a README with escapes', () => {
  it("the project's build steps are its own: a sub-project's `cd web && npm install` is not the project's", async () => {
    const markdown = await writeAgentDocument(goSessionRepo(tempDir()), 'squad-guide', {
      subject: 'Give me an onboarding guide',
      body: '',
    });
    const build = sectionOf(markdown, '## How to build and run it');
    expect(build).toMatch(/```sh\ngo build \.\/\.\.\.\n/);
    expect(build).not.toContain('cd web');
  });

  it('an area of assets is an area, a file is named without a slash, a quoted README reads as rendered', async () => {
    const markdown = await writeAgentDocument(goSessionRepo(tempDir()), 'app-docs', {
      subject: 'Document app/, assets/ and web/',
      body: 'Write the deliverable about app/, assets/ and web/ of squad: its architecture, layout, main modules and dependencies, entry points, and how it is built and tested.',
    });
    // Not a search for the word "assets".
    expect(markdown).not.toContain('From the mission:');
    expect(markdown).toContain('## `assets/`');
    expect(markdown).not.toContain('`main.go/`');
    expect(markdown).toContain('Check `main.go` when changing its exports');
    const web = sectionOf(markdown, '### What `web` is for');
    expect(web).toContain('built with \\[Next.js\\](https://nextjs.org) and Tailwind.');
    expect(web).not.toContain('\\\\[');
    expect(web).not.toContain('tailwindcss.com');
  });
});
