import { describe, expect, it } from 'vitest';
import { planMission } from '../../src/mission-plan.js';
import { writeAgentDocument } from '../helpers/agent-document.js';
import { writeTree } from '../../../../test/helpers/fixture-repo.js';
import { goSessionRepo } from '../../../../test/helpers/go-session-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

const WORKTREE = 'How does a new session get its own git worktree? Name the functions and files.';

/** The section answering the question, up to the next one. */
const sectionOf = (markdown: string, title: string) => {
  const start = markdown.indexOf(`## ${title}\n`);
  expect(start).not.toBe(-1);
  return markdown.slice(start, markdown.indexOf('\n## ', start + 1));
};

describe('a how-X-works answer follows every path to where the thing happens', () => {
  it('"Name the functions and files" asks for the form of the answer, not about names or files', () => {
    const plan = planMission({ subject: WORKTREE, body: '' }, 'squad');
    expect(plan.topics.map((t) => t.title)).toEqual(['How does a new session get its own git worktree?']);
  });

  it('Go: the default path (a new worktree, then Setup where it is created) first, then the branch-selected one', async () => {
    const markdown = await writeAgentDocument(goSessionRepo(tempDir()), 'squad-docs', { subject: WORKTREE, body: '' });
    expect(markdown).not.toContain('## Name the functions and files');
    const answer = sectionOf(markdown, 'How does a new session get its own git worktree?');
    expect(answer).toContain('`Instance.Start` (`session/instance.go:20`) goes 3 ways');
    const paths = [...answer.matchAll(/^Path (\d), ([^:]+): `([\w.]+)`/gm)].map((m) => [m[2], m[3]]);
    expect(paths).toEqual([
      ['by default when `not (i.Branch != "")`', 'NewGitWorktree'],
      ['on every path', 'GitWorktree.Setup'],
      ['only when `i.Branch != ""`', 'NewGitWorktreeFromBranch'],
    ]);
    // Followed to where the worktree is made: `git worktree add` in setupNewWorktree.
    expect(answer).toContain('`GitWorktree.setupNewWorktree` at `session/git/worktree_ops.go:11`');
    expect(answer).not.toContain('no chain of calls could be traced');
  });

  it('TypeScript: an if without else — the call after it is on every path, the one inside optional', async () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'uploader', main: 'src/main.ts' }),
      'src/main.ts': "import { upload } from './upload.js';\n\nupload(process.argv[2] ?? '', process.env.BUCKET);\n",
      'src/upload.ts':
        "import { compressUpload } from './compress.js';\nimport { storeUpload } from './store.js';\n\nexport function upload(path: string, bucket?: string) {\n  let data = path;\n  if (bucket !== undefined) {\n    data = compressUpload(data);\n  }\n  return storeUpload(data);\n}\n",
      'src/compress.ts': 'export function compressUpload(file: string) {\n  return file.trim();\n}\n',
      'src/store.ts': 'export function storeUpload(file: string) {\n  return file;\n}\n',
    });
    const answer = sectionOf(
      await writeAgentDocument(root, 'upload-docs', { subject: 'How is an upload stored?', body: '' }),
      'How is an upload stored?',
    );
    const paths = [...answer.matchAll(/^Path (\d), ([^:]+): `([\w.]+)`/gm)].map((m) => [m[2], m[3]]);
    expect(paths).toEqual([
      ['on every path', 'storeUpload'],
      ['only when `bucket !== undefined`', 'compressUpload'],
    ]);
  });
});
