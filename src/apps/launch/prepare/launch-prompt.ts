import { existsSync } from 'node:fs';
import { progressLines, type Archetype } from '../../../engine/archetypes/archetype.js';
import { playbookSkillFile } from '../../../infra/config/referenced-files.js';
import { readTextFile } from '../../../infra/fs/read-json-file.js';
import type { FederationConfig } from '../../../core/schema/config.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';

/**
 * The launch prompt: everything an agent (an LLM session or the built-in one) needs to do the team's
 * job — the mission, what its archetype expects of it, the playbook skill, and the protocol: which
 * `fed event` to send at each step (read off the lifecycle's event schema), how to send signals, how to
 * acknowledge them. An agent whose CLI has fed's MCP server is told to use its `fed_*` tools first.
 */
export function playbookSkillPath(root: string, config: FederationConfig): string | null {
  const path = playbookSkillFile(root, config);
  return existsSync(path) ? path : null;
}

/** A skill is a page of guidance that goes into every prompt: more than this is a mistake, not a playbook. */
const MAX_SKILL_BYTES = 256 * 1024;

/** The playbook skill's text; a FIFO, device or oversized file there is refused by name (never read blindly, never hangs). */
function readPlaybookSkill(path: string): string | undefined {
  return readTextFile(
    path,
    `make the playbook skill a regular file of at most ${MAX_SKILL_BYTES} bytes, or set playbookSkill to another skill`,
    { maxBytes: MAX_SKILL_BYTES },
  )?.trim();
}

/** What the archetype contributes: its lifecycle and its brief for this launch (`Archetype.agentBrief`). */
export interface PromptArchetype {
  archetype: Archetype;
  brief: string;
}

/** The tools of fed's MCP server (src/apps/mcp/), for an agent whose CLI has it this run (`context.mcpServer`). */
const MCP_TOOLS = `
You have fed's MCP server (\`fed\`): use its tools for everything below — they take typed arguments and
answer with fed's own refusals, so nothing needs quoting:
- \`fed_whoami\`: your team, lifecycle state, mission, the events your state accepts now (with their data), your deliverable and limits. Call it first.
- \`fed_event\`: report a lifecycle event with its data.
- \`fed_inbox\`: your unread signals (it tells you when new ones arrive); \`fed_ack\`: acknowledge them by id.
- \`fed_send\`: send a signal to meta or a team (always from your team).
The shell commands below do the same; use them only when a tool is not there or does not answer.
`;

export function renderLaunchPrompt(context: LaunchContext, { archetype, brief }: PromptArchetype): string {
  const skill = context.playbookSkillPath ? readPlaybookSkill(context.playbookSkillPath) : undefined;
  return `# Mission for team ${context.team}

${context.mission.subject}

${context.mission.body || '(no further details)'}

## Where you are

- Your workspace (working directory): ${context.workspace}
- The codebase you work on: ${context.codebase}
- Your lifecycle (${archetype.lifecycle.id}, a ${archetype.id} team) is now in state \`${context.state}\`; continue from there.

## What a ${archetype.id} team does

${brief.trim()}

## Protocol
${context.mcpServer ? MCP_TOOLS : ''}
Report every step of your lifecycle with ${context.mcpServer ? '`fed_event` (the event type and its data) or ' : ''}\`fed event\` (the team is implied by your workspace and $FED_TEAM):

${progressLines(archetype.lifecycle)
  .map((line) => `1. ${line}`)
  .join('\n')}

If you cannot go on, report it and stop: \`fed event FAIL --data '{"reason": "<what went wrong>"}'\`.

Signals:
- Read your inbox: \`fed signal list --unacked\` (or wait with \`fed signal watch --backlog\`).
- Acknowledge each signal you read: \`fed signal ack <id>\` (or \`fed signal ack --all\`).
- Answer a question: \`fed signal send --to <its sender> --type report --reply-to <its id> --subject "<short>" --body "<answer>"\` (an unanswered question is escalated to meta after its deadline).
- Share results: \`fed signal send --to meta --type report --subject "<short>" --body "<details>"\`.
- Raise a blocking problem: \`fed signal send --to meta --type alert --subject "<short>" --body "<details>"\`.

If you are stopped (SIGTERM), the team was paused; exit promptly — a later launch continues from the
state you reached.
${skill ? `\n## Playbook (${context.playbookSkillPath})\n\n${skill}\n` : ''}`;
}
