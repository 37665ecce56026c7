import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { answerQuestion, runConsultant, type ConsultIo } from '../../src/consult.js';
import { FedEventError } from '../../src/fed-event.js';
import { agentContext } from '../helpers/agent-document.js';
import { surveyCodebase } from 'fed/survey';
import { typescriptProject } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

describe("the built-in consultant's answers", () => {
  test('name the files that match, with the lines quoted, and what no file mentions', () => {
    const survey = surveyCodebase(typescriptProject(tempDir()));
    const answer = answerQuestion(survey, 'tiny-ts', { subject: 'Where is the helper used?', body: '' });
    expect(answer).toContain('- src/util/helper.ts (matches helper)');
    expect(answer).toMatch(/ {2}src\/util\/helper\.ts:\d+:\n {6}/);
    expect(answerQuestion(survey, 'tiny-ts', { subject: 'Where is the engine defined?', body: '' })).toContain(
      '(No file mentions "defined".)',
    );
  });

  test('say plainly when nothing matches, and when the question names nothing to look up', () => {
    const survey = surveyCodebase(typescriptProject(tempDir()));
    expect(
      answerQuestion(survey, 'tiny-ts', { subject: 'How is the "payment gateway" configured?', body: '' }),
    ).toContain(
      'I found nothing in the codebase that answers this: no file\'s path, declared names or text matches "payment", "gateway"',
    );
    expect(answerQuestion(survey, 'tiny-ts', { subject: 'How does the project work?', body: '' })).toMatch(
      /^I found nothing to look up: the question names no file, name or behaviour/,
    );
  });
});

describe('the built-in consultant reports while it indexes', () => {
  /** The consultant's io with nothing to answer; `report` as the test gives it. */
  const io = (report: ConsultIo['report'], logs: string[]): ConsultIo => ({
    report,
    log: (line) => logs.push(line),
    now: () => new Date(),
    lifecycle: async () => ({ state: 'ready', current: null }),
    questionBody: async () => '',
    fed: async () => '',
  });

  test('INDEXING_STARTED is on its way before the codebase is indexed, and applied before anything follows', async () => {
    const codebase = typescriptProject(tempDir());
    const context = { ...agentContext(codebase, { state: 'onboarding' }), archetype: 'consultant' };
    const add = (name: string) => writeFileSync(join(codebase, name), 'export const late = 1;\n');
    const sent: { type: string; data: Record<string, unknown> }[] = [];
    const logs: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const outcome = runConsultant(
      context,
      io(async (type, data, onSent) => {
        sent.push({ type, data });
        if (type !== 'INDEXING_STARTED') return '';
        add('as-sent.ts');
        onSent?.();
        await held;
        return '';
      }, logs),
    );
    await expect.poll(() => sent.length).toBe(1);
    // Indexed while the event is applied: a file added meanwhile is not in the index, and nothing is said yet.
    add('while-applied.ts');
    expect(logs).toEqual([]);
    release();
    expect(await outcome).toEqual({ status: 'waiting', answered: 0 });
    expect(sent).toEqual([
      { type: 'INDEXING_STARTED', data: {} },
      { type: 'INDEX_READY', data: { filesIndexed: 11 } },
    ]);
  });

  test('a refused INDEXING_STARTED ends the run before anything else is said or sent', async () => {
    const context = { ...agentContext(typescriptProject(tempDir()), { state: 'onboarding' }), archetype: 'consultant' };
    const refusal = new FedEventError('fed event INDEXING_STARTED exited 2: team "docs" is paused');
    const sent: string[] = [];
    const logs: string[] = [];
    const outcome = runConsultant(
      context,
      io(async (type, _data, onSent) => {
        sent.push(type);
        onSent?.();
        throw refusal;
      }, logs),
    );
    await expect(outcome).rejects.toBe(refusal);
    expect(sent).toEqual(['INDEXING_STARTED']);
    expect(logs).toEqual([]);
  });
});
