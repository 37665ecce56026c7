import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLaunchContext } from '../../src/agent-context.js';
import { FAILURE } from '../../src/run-agent.js';
import { FedEventError } from '../../src/fed-event.js';
import { checkDeliverable, learningEntrySchema, RefusedError } from 'fed';
import { type LaunchContext } from 'fed/agent';
import { frameworkProject, typescriptProject, writeTree } from '../../../../test/helpers/fixture-repo.js';
import { agentContext, runBuiltInAgent } from '../helpers/agent-document.js';
import type { AgentIo } from '../../src/run-agent.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/** A launch context for a team workspace in a temp dir, studying `codebase`. */
const contextFor = (codebase: string, state = 'preparing', mission?: { subject: string; body: string }) =>
  agentContext(codebase, { state, ...(mission ? { mission } : {}) });

/** Runs the agent with a reporter that records events instead of running `fed event`. */
async function run(context: LaunchContext) {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const outcome = await runBuiltInAgent(context, async (type, data) => {
    events.push({ type, data });
    return '';
  });
  return { outcome, events, types: events.map((e) => e.type) };
}

describe('fed-agent lifecycle walk', () => {
  it('from preparing: plans, scans, distils, writes a deliverable that passes the check, and logs what it learned', async () => {
    const context = contextFor(typescriptProject(tempDir()));
    const { outcome, events, types } = await run(context);
    expect(types).toEqual(['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY', 'DOCUMENT_WRITTEN']);
    expect(events[0]?.data).toEqual({
      sources: ['.gitignore', 'README.md', 'package-lock.json', 'package.json', 'src', 'test'],
    });
    expect(events[1]?.data).toEqual({ filesRead: 10 });
    expect((events[2]?.data.insights as string[]).length).toBeGreaterThan(3);
    const bytes = readFileSync(context.deliverablePath).length;
    expect(events[3]?.data).toEqual({ path: 'deliverable.md', bytes });
    expect(outcome).toEqual({ status: 'complete', path: context.deliverablePath, bytes });
    expect(checkDeliverable(context.deliverablePath).violations).toEqual([]);

    const entries = readFileSync(context.learningLogPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => learningEntrySchema.parse(JSON.parse(l)));
    expect(new Set(entries.map((e) => e.category))).toEqual(
      new Set(['structure', 'stack', 'entry-point', 'dependency', 'testing', 'hotspot']),
    );
    expect(entries.every((e) => e.domain === 'docs' && e.timestamp === '2026-01-31T12:00:00.000Z')).toBe(true);
    expect(entries).toContainEqual(
      expect.objectContaining({
        category: 'entry-point',
        confidence: 'high',
        content: 'src/cli.ts: declared in package.json bin "tiny" (dist/cli.js)',
      }),
    );
  });

  it('a relaunch in distilling re-derives the scan and reports only what is still due, without logging twice', async () => {
    const context = contextFor(typescriptProject(tempDir()), 'distilling');
    const { types, outcome } = await run(context);
    expect(types).toEqual(['INSIGHTS_READY', 'DOCUMENT_WRITTEN']);
    expect(outcome.status).toBe('complete');
    expect(existsSync(context.learningLogPath)).toBe(false);
    expect((await run({ ...context, state: 'aggregating' })).types).toEqual(['DOCUMENT_WRITTEN']);
  });

  it('never writes in the codebase', async () => {
    const codebase = typescriptProject(tempDir());
    const before = readFileSync(join(codebase, 'src/cli.ts'), 'utf8');
    await run(contextFor(codebase));
    expect(readFileSync(join(codebase, 'src/cli.ts'), 'utf8')).toBe(before);
    expect(existsSync(join(codebase, 'deliverable.md'))).toBe(false);
  });

  it('an empty codebase fails with "required information cannot be found"', async () => {
    const { types, events, outcome } = await run(contextFor(tempDir()));
    expect(types).toEqual(['FAIL']);
    expect(events[0]?.data.reason).toMatch(
      new RegExp(`^${FAILURE.nothingFound}: the codebase .* has nothing to study`),
    );
    expect(outcome.status).toBe('failed');
  });

  it('a codebase with folders but no files fails the same way, after planning', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'src', 'empty'), { recursive: true });
    const { types, events } = await run(contextFor(root));
    expect(types).toEqual(['PLAN_READY', 'FAIL']);
    expect(events[1]?.data.reason).toMatch(new RegExp(`^${FAILURE.nothingFound}: no files in`));
  });

  it('a codebase where nothing is readable fails with "source files corrupted or inaccessible"', async () => {
    // As root every file is readable, so unreadability is a dangling symbolic link.
    const root = tempDir();
    symlinkSync(join(root, 'gone.ts'), join(root, 'main.ts'));
    const { types, events } = await run(contextFor(root));
    expect(types).toEqual(['PLAN_READY', 'FAIL']);
    expect(events[1]?.data.reason).toBe(
      `${FAILURE.unreadable}: none of the 1 files could be read (main.ts: dangling symbolic link)`,
    );
    expect((await run(contextFor(join(root, 'missing')))).events[0]?.data.reason).toMatch(
      new RegExp(`^${FAILURE.unreadable}: the codebase .*missing cannot be read \\(ENOENT\\)`),
    );
  });

  it('an unreadable file among readable ones is counted and reported in the document', async () => {
    const root = typescriptProject(tempDir());
    symlinkSync(join(root, 'gone.ts'), join(root, 'src', 'broken.ts'));
    const context = contextFor(root);
    const { events, outcome } = await run(context);
    expect(outcome.status).toBe('complete');
    expect(events[1]?.data).toEqual({ filesRead: 10 });
    const markdown = readFileSync(context.deliverablePath, 'utf8');
    expect(markdown).toContain('## Files that could not be read');
    expect(markdown).toContain('| `src/broken.ts` | dangling symbolic link |');
    expect(readFileSync(context.learningLogPath, 'utf8')).toContain(
      '"content":"src/broken.ts could not be read: dangling symbolic link"',
    );
  });

  it('a complete team needs nothing; a paused or failed one is refused', async () => {
    const codebase = writeTree(tempDir(), { 'a.ts': '' });
    expect((await run(contextFor(codebase, 'complete'))).outcome).toEqual({ status: 'already-complete' });
    await expect(run(contextFor(codebase, 'paused'))).rejects.toThrow(RefusedError);
    await expect(run(contextFor(codebase, 'failed'))).rejects.toThrow(
      /team "docs" is failed; fed-agent works in preparing, scanning, distilling, aggregating/,
    );
  });
});

describe('fed-agent reports while it works', () => {
  /**
   * A reporter whose answers the test gives: each report is on its way at once (as a request written to
   * the launcher's socket is) and waits until `answer` settles it; `onSend` runs as each is sent.
   */
  function heldReporter(onSend: (type: string) => void = () => {}) {
    const sent: string[] = [];
    const waiting: { type: string; settle: (error?: Error) => void }[] = [];
    const data: Record<string, unknown>[] = [];
    const report: AgentIo['report'] = (type, fields, onSent) =>
      new Promise<string>((resolve, reject) => {
        sent.push(type);
        data.push(fields);
        onSend(type);
        waiting.push({ type, settle: (error) => (error ? reject(error) : resolve('')) });
        onSent?.();
      });
    /** Settles the one report in flight (there is never more than one), once the agent has sent it. */
    const answer = async (type: string, error?: Error) => {
      await expect.poll(() => waiting.map((w) => w.type)).toEqual([type]);
      waiting.shift()!.settle(error);
    };
    return { report, sent, data, answer };
  }

  /** Until the agent has done all it can before its next wait: its work is synchronous, a timer comes after it. */
  const agentWaits = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('sends the next report, writes a file or ends only after the last report was applied, one at a time and in order', async () => {
    const context = contextFor(typescriptProject(tempDir()));
    const add = (name: string) => writeFileSync(join(context.codebase, name), 'export const late = 1;\n');
    // The codebase is read once PLAN_READY is on its way and while it is applied: a file added as it is sent
    // is counted, one added while it waits for its answer is not.
    const { report, sent, data, answer } = heldReporter((type) => type === 'PLAN_READY' && add('as-sent.ts'));
    const outcome = runBuiltInAgent(context, report);
    await expect.poll(() => sent.length).toBe(1);
    await agentWaits();
    add('while-applied.ts');
    // The learning log follows PLAN_READY.
    expect(existsSync(context.learningLogPath)).toBe(false);
    await answer('PLAN_READY');
    await answer('SCAN_COMPLETE');
    expect(data[1]).toEqual({ filesRead: 11 });
    expect(existsSync(context.learningLogPath)).toBe(true);
    // The document is rendered while INSIGHTS_READY is applied, and written after it.
    await expect.poll(() => sent.length).toBe(3);
    await agentWaits();
    expect(existsSync(context.deliverablePath)).toBe(false);
    await answer('INSIGHTS_READY');
    await expect.poll(() => sent.length).toBe(4);
    expect(existsSync(context.deliverablePath)).toBe(true);
    let ended = false;
    void outcome.then(() => (ended = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    await answer('DOCUMENT_WRITTEN');
    expect((await outcome).status).toBe('complete');
    expect(sent).toEqual(['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY', 'DOCUMENT_WRITTEN']);
  });

  it('a refused report ends the run where the next trace would be: nothing written, nothing more sent', async () => {
    const context = contextFor(typescriptProject(tempDir()));
    const { report, sent, answer } = heldReporter();
    const outcome = runBuiltInAgent(context, report);
    const refusal = new FedEventError('fed event PLAN_READY exited 2: team "docs" is paused');
    await answer('PLAN_READY', refusal);
    await expect(outcome).rejects.toBe(refusal);
    expect(sent).toEqual(['PLAN_READY']);
    expect(existsSync(context.learningLogPath)).toBe(false);
    expect(existsSync(context.deliverablePath)).toBe(false);
  });

  it('refused while the document is rendered, the document is never written', async () => {
    const context = contextFor(typescriptProject(tempDir()));
    const { report, sent, answer } = heldReporter();
    const outcome = runBuiltInAgent(context, report);
    await answer('PLAN_READY');
    await answer('SCAN_COMPLETE');
    const refusal = new FedEventError('fed event INSIGHTS_READY exited 2: team "docs" is paused');
    await answer('INSIGHTS_READY', refusal);
    await expect(outcome).rejects.toBe(refusal);
    expect(sent).toEqual(['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY']);
    expect(existsSync(context.deliverablePath)).toBe(false);
  });
});

describe('fed-agent answers its mission', () => {
  it('a flow question gets its own section first — chain, ranked files, excerpts — then the overview', async () => {
    const context = contextFor(frameworkProject(tempDir()), 'preparing', {
      subject: 'Request handling',
      body: 'How does a request flow through the framework?',
    });
    const { types, events, outcome } = await run(context);
    expect(types).toEqual(['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY', 'DOCUMENT_WRITTEN']);
    expect(outcome.status).toBe('complete');
    expect((events[2]?.data.insights as string[])[0]).toBe(
      'For “How does a request flow through the framework?”, the imports run `src/router.js` → `src/middleware/chain.js` → `src/handlers/request-handler.js`.',
    );
    const check = checkDeliverable(context.deliverablePath);
    expect(check.violations).toEqual([]);
    const h2 = check.summary.sections.filter((s) => s.level === 2).map((s) => s.title);
    expect(h2.slice(0, 3)).toEqual(['Contents', 'How does a request flow through the framework?', 'Key findings']);
    expect(h2).toContain('Layout');
    const markdown = readFileSync(context.deliverablePath, 'utf8');
    expect(check.summary.title).toBe('minifw: Request handling');
    // "handling" ranks the server, which mentions a request once, below the chain's share.
    expect(markdown).toContain(
      "1. `src/router.js` imports `src/middleware/chain.js` (line 2: `import { runMiddleware } from './middleware/chain.js';`), and calls `runMiddleware` at line 7.",
    );
    // The subject's words join the question's: "Request handling" adds "handling".
    expect(markdown).toContain(
      '| `src/handlers/request-handler.js` | path, identifier, text | `request`, `handling` |',
    );
    expect(markdown).toContain(
      '`src/handlers/request-handler.js:3`:\n\n```js\nexport async function handleRequest(route, req, res) {',
    );
    const entries = readFileSync(context.learningLogPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => learningEntrySchema.parse(JSON.parse(l)));
    expect(entries).toContainEqual(
      expect.objectContaining({
        category: 'dependency',
        confidence: 'high',
        content:
          'for "How does a request flow through the framework?" the imports run src/router.js -> src/middleware/chain.js -> src/handlers/request-handler.js',
      }),
    );
    // Relevance by path or declared names is inferred from names (medium); by text alone it is a guess (low).
    expect(entries).toContainEqual(
      expect.objectContaining({
        confidence: 'medium',
        content:
          'src/handlers/request-handler.js is relevant to "How does a request flow through the framework?": it matches request, handling by path, identifier, text',
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        confidence: 'low',
        content:
          'src/middleware/chain.js is relevant to "How does a request flow through the framework?": it matches request, handling by text',
      }),
    );
  });

  it('"only" keeps the document to the mission: no overview sections', async () => {
    const context = contextFor(frameworkProject(tempDir()), 'preparing', {
      subject: 'Only explain how queries reach the pool',
      body: '',
    });
    expect((await run(context)).outcome.status).toBe('complete');
    const h2 = checkDeliverable(context.deliverablePath)
      .summary.sections.filter((s) => s.level === 2)
      .map((s) => s.title);
    expect(h2).toEqual(['Only explain how queries reach the pool', 'About this document', 'Next steps']);
  });

  it('a fix attempt (context.fix) rewrites the document with the overview, from aggregating; with nothing fuller to write it is unfixed', async () => {
    const context = contextFor(frameworkProject(tempDir()), 'preparing', {
      subject: 'Only explain how queries reach the pool',
      body: '',
    });
    expect((await run(context)).outcome.status).toBe('complete');
    const narrow = checkDeliverable(context.deliverablePath).summary.sections.length;
    const fix = {
      attempt: 1,
      of: 2,
      event: 'DOCUMENT_WRITTEN',
      reason: 'document structure cannot be determined: 1 violation(s)',
      violations: ['line 1: does not match deliverableSchema: summary.diagrams: must NOT have fewer than 1 items'],
    };
    const fixed = await run({ ...context, state: 'aggregating', fix });
    expect(fixed).toMatchObject({ types: ['DOCUMENT_WRITTEN'], outcome: { status: 'complete' } });
    const wide = checkDeliverable(context.deliverablePath);
    expect(wide.ok).toBe(true);
    expect(wide.summary.sections.length).toBeGreaterThan(narrow);
    // The same refusal again: the document is already the fullest it can write.
    const again = await run({ ...context, state: 'aggregating', fix: { ...fix, attempt: 2 } });
    expect(again).toMatchObject({
      types: [],
      outcome: { status: 'unfixed', reason: `${fix.reason} (fed-agent has no fuller document to write)` },
    });
  });

  it('a mission about something the codebase does not have fails with the spec reason and what was searched', async () => {
    const context = contextFor(frameworkProject(tempDir()), 'preparing', {
      subject: 'Document the payment gateway',
      body: 'Cover refunds too.',
    });
    const { types, events, outcome } = await run(context);
    expect(types).toEqual(['PLAN_READY', 'FAIL']);
    const reason = `${FAILURE.nothingFound}: the mission asks about "Document the payment gateway" (in "Document the payment gateway"), but no file mentions most of "payment", "gateway" ("payment", "gateway" appear nowhere) (looked for words starting payment…, gateway…); the mission asks about "Cover refunds too" (in "Cover refunds too."), but no file mentions most of "refunds" ("refunds" appears nowhere) (looked for words starting refund…) (searched the paths, declared names and text of 10 code and documentation files, skipping .git/, .fed/, federate.config.json, the federation report, node_modules/ and what .gitignore ignores)`;
    expect(events[1]?.data).toEqual({ reason });
    expect(outcome).toEqual({ status: 'failed', reason });
    expect(existsSync(context.deliverablePath)).toBe(false);
    // What was learned is kept, the gap included.
    expect(readFileSync(context.learningLogPath, 'utf8')).toContain(
      '"category":"gap","content":"the mission asks about \\"Document the payment gateway\\" but nothing in the codebase mentions \\"payment\\", \\"gateway\\""',
    );
  });
});

describe('reading the launch context', () => {
  const write = (context: unknown) => {
    const file = join(tempDir(), 'context.json');
    writeFileSync(file, typeof context === 'string' ? context : JSON.stringify(context));
    return file;
  };

  it('reads a valid context named by FED_LAUNCH_CONTEXT', () => {
    const context = contextFor(tempDir());
    expect(readLaunchContext({ FED_LAUNCH_CONTEXT: write(context), FED_TEAM: 'docs' })).toEqual(context);
  });

  it.each([
    [{}, /FED_LAUNCH_CONTEXT is not set; fed-agent is started by `fed launch --team <team>`/],
    [
      { FED_LAUNCH_CONTEXT: '/nonexistent/context.json' },
      /cannot read the launch context \/nonexistent\/context\.json \(FED_LAUNCH_CONTEXT\): ENOENT/,
    ],
  ])('refuses a missing context: %j', (env, message) => {
    expect(() => readLaunchContext(env)).toThrow(message);
  });

  it('refuses a FIFO or directory as the context without blocking on it', () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: join(dir, 'fifo.json') })).toThrow(
      /\(FED_LAUNCH_CONTEXT\): a named pipe \(FIFO\), not a regular file/,
    );
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: dir })).toThrow(
      /\(FED_LAUNCH_CONTEXT\): a directory, not a regular file/,
    );
  });

  it('refuses invalid JSON, invalid fields, another team, and output paths outside the workspace', () => {
    const context = contextFor(tempDir());
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: write('{"team":') })).toThrow(
      /is not JSON \(line 1, column 9/,
    );
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: write({ ...context, codebase: 'relative/path' }) })).toThrow(
      /codebase: expected an absolute path/,
    );
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: write(context), FED_TEAM: 'api' })).toThrow(
      /FED_TEAM is "api" but the launch context .* is for team "docs"/,
    );
    const escaping = { ...context, deliverablePath: join(context.workspace, '..', 'deliverable.md') };
    expect(() => readLaunchContext({ FED_LAUNCH_CONTEXT: write(escaping) })).toThrow(
      /deliverablePath .* is outside the team workspace/,
    );
  });
});
