import { describe, expect, test } from 'vitest';
import { answerQuestion } from '../../../src/agent/consult.js';
import { surveyCodebase } from '../../../src/agent/survey.js';
import { answerBody, answerSubject, answeredQuestionId } from '../../../src/index.js';
import { typescriptProject } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe("the built-in consultant's answers", () => {
  test('name the files that match, with the lines quoted, and what no file mentions', () => {
    const survey = surveyCodebase(typescriptProject(tempDir()));
    const answer = answerQuestion(survey, 'tiny-ts', { subject: 'Where is the helper used?', body: '' });
    expect(answer).toContain('- src/util/helper.ts (matches helper)');
    expect(answer).toMatch(/ {2}src\/util\/helper\.ts:\d+:\n {6}/);
    expect(answerQuestion(survey, 'tiny-ts', { subject: 'Where is the engine defined?', body: '' })).toContain('(No file mentions "defined".)');
  });

  test('say plainly when nothing matches, and when the question names nothing to look up', () => {
    const survey = surveyCodebase(typescriptProject(tempDir()));
    expect(answerQuestion(survey, 'tiny-ts', { subject: 'How is the "payment gateway" configured?', body: '' })).toContain(
      'I found nothing in the codebase that answers this: no file\'s path, declared names or text matches "payment", "gateway"',
    );
    expect(answerQuestion(survey, 'tiny-ts', { subject: 'How does the project work?', body: '' })).toMatch(/^I found nothing to look up: the question names no file, name or behaviour/);
  });

  test("an answer names its question where a reply-to record would, and it reads back", () => {
    const id = '0b7e2a52-6f1c-4d8e-9a43-1c2d3e4f5a6b';
    expect(answerSubject('Where is main?')).toBe('re: Where is main?');
    const body = answerBody(id, 'In src/index.ts.');
    expect(body.split('\n')[0]).toBe(`In reply to question ${id}.`);
    expect(answeredQuestionId(body)).toBe(id);
    expect(answeredQuestionId('A report about something else.')).toBeUndefined();
  });
});
