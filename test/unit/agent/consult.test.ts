import { describe, expect, test } from 'vitest';
import { answerQuestion } from '../../../src/apps/agent/consult.js';
import { surveyCodebase } from '../../../src/apps/agent/survey.js';
import { typescriptProject } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

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
