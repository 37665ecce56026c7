import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A consultant team served by the built-in agent, through the real CLI: `fed launch` runs fed-agent, which
 * indexes the codebase once and answers each waiting question with a report to the asker that names the
 * question, the matching files and excerpts — or says plainly that it found nothing.
 */
interface Signal {
  id: string;
  from: string;
  to: string;
  type: string;
  subject: string;
  body: string;
  timestamp: string;
}

async function consultantFederation() {
  const root = typescriptProject(tempDir());
  const fed = (args: string[], timeoutMs?: number) => runFed(['--root', root, ...args], { cwd: root, timeoutMs });
  expect((await fed(['init'])).code).toBe(0);
  expect((await fed(['team', 'onboard', 'helper', '--archetype', 'consultant'])).code).toBe(0);
  expect(
    (
      await fed([
        'signal',
        'send',
        '--to',
        'helper',
        '--type',
        'directive',
        '--subject',
        'Answer questions about tiny-ts',
      ])
    ).code,
  ).toBe(0);
  const ask = async (subject: string, body = '') => {
    const sent = await fed([
      'signal',
      'send',
      '--to',
      'helper',
      '--type',
      'question',
      '--subject',
      subject,
      '--body',
      body,
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    return (JSON.parse(sent.stdout) as { id: string }).id;
  };
  const reports = (): Signal[] => {
    const inbox = join(root, '.fed', 'signals', 'inbox');
    return (
      readdirSync(inbox)
        .filter((name) => name.endsWith('.json'))
        .map((name) => JSON.parse(readFileSync(join(inbox, name), 'utf8')) as Signal)
        .filter((s) => s.type === 'report' && s.from === 'helper' && s.subject.startsWith('re: '))
        // In the order sent: two answers in one second have names that sort by subject, not by time.
        .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
    );
  };
  return { root, fed, ask, reports };
}

describe('a consultant team with the built-in agent', () => {
  test('indexes once, then answers each question (in order) with files and excerpts, or plainly nothing; meta retires it', async () => {
    const { fed, ask, reports } = await consultantFederation();
    const launch = async () => {
      const run = await fed(['launch', '--team', 'helper', '--json'], 60_000);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { outcome: string; state: string; next: string };
    };

    const indexed = await launch();
    expect(indexed).toMatchObject({
      outcome: 'waiting',
      state: 'ready',
      next: expect.stringContaining('--type question'),
    });
    // With no question waiting there is nothing to launch for.
    const idle = await fed(['launch', '--team', 'helper']);
    expect(idle.code).toBe(2);
    expect(idle.stderr).toContain('nothing to do');

    const engine = await ask('Where is the engine defined?', 'Which file declares `engine`?');
    const gateway = await ask('How is the "payment gateway" configured?');
    expect(await launch()).toMatchObject({ outcome: 'waiting', state: 'ready' });

    // Answered in the order asked.
    const answers = reports();
    // Each answer is recorded as the reply to its question (--reply-to): both questions read as answered.
    const answerTo = (subject: string) => answers.find((a) => a.subject === `re: ${subject}`);
    for (const [question, answer] of [
      [engine, answerTo('Where is the engine defined?')],
      [gateway, answerTo('How is the "payment gateway" configured?')],
    ] as const) {
      const shown = JSON.parse((await fed(['signal', 'show', question, '--json'])).stdout) as {
        delivery: { state: string };
      };
      expect(shown.delivery.state).toBe('answered');
      const reply = JSON.parse((await fed(['signal', 'show', answer!.id, '--json'])).stdout) as {
        replyTo: string | null;
      };
      expect(reply.replyTo).toBe(question);
    }
    const [found, nothing] = answers;
    expect(found).toMatchObject({ to: 'meta', subject: 're: Where is the engine defined?' });
    expect(found!.body).toContain('src/core/engine.ts');
    expect(found!.body).toMatch(
      / {2}src\/core\/engine\.ts:\d+:\n(?: {6}.*\n)* {6}export function engine\(input: string\): string \{/,
    );
    expect(nothing!.subject).toBe('re: How is the "payment gateway" configured?');
    expect(nothing!.body).toContain('I found nothing in the codebase that answers this');

    const shown = JSON.parse((await fed(['team', 'show', 'helper', '--json'])).stdout) as {
      lifecycle: { state: string };
    };
    expect(shown.lifecycle.state).toBe('ready');

    expect((await fed(['signal', 'send', '--to', 'helper', '--type', 'directive', '--subject', 'retire'])).code).toBe(
      0,
    );
    expect((await fed(['actors', 'run', '--team', 'helper', '--once'])).code).toBe(0);
    const retired = JSON.parse((await fed(['team', 'show', 'helper', '--json'])).stdout) as {
      lifecycle: { state: string };
    };
    expect(retired.lifecycle.state).toBe('retired');
    const after = await fed(['launch', '--team', 'helper']);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('already retired');
  });
});
