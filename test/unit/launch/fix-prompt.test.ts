import { describe, expect, it } from 'vitest';
import { renderFixPrompt } from '../../../src/apps/launch/prepare/fix-prompt.js';
import { deliverableArchetype, type LaunchContext } from 'fed/testing';

const context = (violations: string[]): LaunchContext & Required<Pick<LaunchContext, 'fix'>> => ({
  team: 'docs',
  archetype: 'deliverable',
  root: '/fed',
  workspace: '/fed/.fed/teams/docs',
  codebase: '/fed',
  mission: { signalId: 'sig-1', subject: 'Document it', body: '' },
  state: 'aggregating',
  deliverable: 'deliverable.md',
  deliverablePath: '/fed/.fed/teams/docs/deliverable.md',
  playbookSkillPath: null,
  learningLogPath: '/fed/.fed/teams/docs/.fed/learning-log.jsonl',
  launchedAt: '2026-11-23T10:00:00.000Z',
  fix: { attempt: 2, of: 2, event: 'DOCUMENT_WRITTEN', reason: 'document structure cannot be determined', violations },
});

describe('the fix prompt', () => {
  it('continues the mission: what was refused, each violation, how to check, and the event to send again', () => {
    const prompt = renderFixPrompt(context(['line 3: the summary has 1 sentence; it needs 2–3']), deliverableArchetype);
    expect(prompt)
      .toBe(`Continue your mission for team docs: fed's checks refused your DOCUMENT_WRITTEN (fix attempt 2 of 2).

What to fix (1):
- line 3: the summary has 1 sentence; it needs 2–3

Fix your deliverable /fed/.fed/teams/docs/deliverable.md so that none of these is left, and change only what they name: keep the rest of the document. \`fed deliverable check deliverable.md\` shows what is still wrong.
Then send the completion again: \`fed event DOCUMENT_WRITTEN --data '{"path":"<deliverable>","bytes":1234}'\`.
Your full instructions are still in /fed/.fed/teams/docs/.fed/launch/prompt.md; the lifecycle is in state \`aggregating\`.
`);
  });

  it('lists at most 50 violations, and the reason when there are none', () => {
    const many = renderFixPrompt(
      context(Array.from({ length: 60 }, (_, i) => `line ${i + 1}: x`)),
      deliverableArchetype,
    );
    expect(many).toContain('What to fix (60):');
    expect(many).toContain('- line 50: x\n- … and 10 more\n');
    expect(many).not.toContain('line 51:');
    expect(renderFixPrompt(context([]), deliverableArchetype)).toContain(
      'What to fix (1):\n- document structure cannot be determined\n',
    );
  });
});
