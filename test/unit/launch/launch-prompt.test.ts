import { describe, expect, it } from 'vitest';
import {
  type Archetype,
  consultantArchetype,
  deliverableArchetype,
  type LaunchContext,
  renderFixPrompt,
} from 'fed/testing';
import { renderLaunchPrompt } from '../../../src/apps/launch/prepare/launch-prompt.js';

const context = (mcpServer?: boolean): LaunchContext => ({
  team: 'docs',
  archetype: 'deliverable',
  root: '/fed',
  workspace: '/fed/.fed/teams/docs',
  codebase: '/fed',
  mission: { signalId: 'sig-1', subject: 'Document it', body: '' },
  state: 'preparing',
  deliverable: 'deliverable.md',
  deliverablePath: '/fed/.fed/teams/docs/deliverable.md',
  playbookSkillPath: null,
  learningLogPath: '/fed/.fed/teams/docs/.fed/learning-log.jsonl',
  launchedAt: '2026-11-23T10:00:00.000Z',
  ...(mcpServer === undefined ? {} : { mcpServer }),
});

const prompt = (ctx: LaunchContext, archetype: Archetype = deliverableArchetype) =>
  renderLaunchPrompt(ctx, { archetype, brief: archetype.agentBrief(ctx, undefined as never, undefined as never) });

describe("the launch prompt and fed's MCP server", () => {
  it('with the server: the fed_* tools first, the shell commands as the fallback', () => {
    const text = prompt(context(true));
    expect(text).toContain("You have fed's MCP server (`fed`): use its tools");
    for (const tool of ['fed_whoami', 'fed_event', 'fed_inbox', 'fed_ack', 'fed_send']) expect(text).toContain(tool);
    expect(text).toContain(
      'Report every step of your lifecycle with `fed_event` (the event type and its data) or `fed event`',
    );
    expect(text).toContain('`fed event PLAN_READY');
  });

  it('without it, the prompt is as before: shell commands only', () => {
    for (const ctx of [context(), context(false)]) {
      const text = prompt(ctx);
      expect(text).not.toMatch(/fed_\w+|MCP/);
      expect(text).toContain('Report every step of your lifecycle with `fed event` (the team is implied');
    }
  });

  it("the consultant's brief and the fix prompt name the tools when the server is there", () => {
    expect(prompt({ ...context(true), archetype: 'consultant' }, consultantArchetype)).toContain(
      '`fed_send` answers (its `replyTo` is the question',
    );
    expect(prompt({ ...context(false), archetype: 'consultant' }, consultantArchetype)).not.toContain('fed_send');
    const fix = { attempt: 1, of: 2, event: 'DOCUMENT_WRITTEN', reason: 'r', violations: ['v'] };
    expect(renderFixPrompt({ ...context(true), fix }, deliverableArchetype)).toContain(
      'send the completion again: `fed_event` with type DOCUMENT_WRITTEN and its data, or `fed event DOCUMENT_WRITTEN',
    );
  });
});
