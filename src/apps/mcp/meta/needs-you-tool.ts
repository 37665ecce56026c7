import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { META } from '../../../core/schema/common.js';
import type { NeedsYouItem } from '../../../core/schema/needs-you.js';
import type { Federation } from '../../../engine/context.js';
import { needsYou } from '../../needs-you/needs-you.js';
import { registerFedTool } from '../fed-tool.js';

const needsYouOutput = z.looseObject({
  items: z.array(
    z.looseObject({
      kind: z.string(),
      action: z.string().describe('the CLI command that resolves it'),
      tool: z.string().describe('the tool call that resolves it'),
    }),
  ),
  problems: z.array(z.string()),
});

/** `fed_needs_you`: what waits on a person, each item with the command that resolves it and the tool that does. */
export function registerNeedsYouTool(server: McpServer, fed: Federation): void {
  registerFedTool(
    server,
    'fed_needs_you',
    {
      description:
        'What waits on you, oldest first: coding teams waiting for your review or merge, paused and failed teams, ' +
        'questions to meta nobody answered, escalations (alerts to meta). Each item says what it is about, since ' +
        'when, the CLI command that resolves it (`action`) and the tool call that does (`tool`).',
      input: z.strictObject({}),
      output: needsYouOutput,
    },
    async () => {
      const { items, problems } = await needsYou(fed);
      return { items: items.map((item) => ({ ...item, tool: toolFor(item) })), problems };
    },
  );
}

/** The tool call that resolves an item, the MCP twin of its `action`. */
function toolFor(item: NeedsYouItem): string {
  const team = item.team ?? META;
  switch (item.kind) {
    case 'question':
      return `answer it: fed_send {"to":"${team}","type":"report","replyTo":"${item.signalId}","subject":"<answer>","body":"<details>"}`;
    case 'escalation':
      return `read it with fed_inbox, then acknowledge it: fed_ack {"ids":["${item.signalId}"]}`;
    case 'review':
      return `fed_review {"team":"${team}","action":"show"}, then "approve", "request-changes" (with "changes") or "merge"`;
    case 'paused':
      return `fed_team_control {"team":"${team}","action":"resume"}, then launch it: fed launch --team ${team}`;
    case 'failed':
      return `see why: fed_team {"team":"${team}"}; start it again: fed_team_control {"team":"${team}","action":"retry"}`;
    case 'host-lost':
      return item.action;
  }
}
