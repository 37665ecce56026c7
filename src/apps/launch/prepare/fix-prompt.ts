import { progressLines, type Archetype } from '../../../engine/archetypes/archetype.js';
import { workspacePaths } from '../../../core/layout.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';

/** Violations listed in the prompt at most: the rest are one `fed deliverable check` away. */
const MAX_LISTED = 50;

/**
 * The prompt of a fix attempt (`.fed/launch/fix.md`): fed refused the agent's completion, and the same
 * session — it knows the mission and its document — is told what to fix, how to see what is left, and to
 * send the completion again. It starts like a continuation prompt: it continues the same mission.
 */
export function renderFixPrompt(
  context: LaunchContext & Required<Pick<LaunchContext, 'fix'>>,
  archetype: Archetype,
): string {
  const { fix } = context;
  const items = fix.violations.length ? fix.violations : [fix.reason];
  const shown = items.slice(0, MAX_LISTED);
  if (items.length > MAX_LISTED) shown.push(`… and ${items.length - MAX_LISTED} more`);
  // The protocol's line for the event, without its description: the command with an example payload.
  const protocol = progressLines(archetype.lifecycle).find((line) => line.startsWith(`\`fed event ${fix.event} `));
  const sendAgain = protocol?.split(' — ')[0] ?? `\`fed event ${fix.event}\``;
  return `Continue your mission for team ${context.team}: fed's checks refused your ${fix.event} (fix attempt ${fix.attempt} of ${fix.of}).

What to fix (${items.length}):
${shown.map((item) => `- ${item}`).join('\n')}

Fix your deliverable ${context.deliverablePath} so that none of these is left, and change only what they name: keep the rest of the document. \`fed deliverable check ${context.deliverable}\` shows what is still wrong.
Then send the completion again: ${context.mcpServer ? `\`fed_event\` with type ${fix.event} and its data, or ` : ''}${sendAgain}.
Your full instructions are still in ${workspacePaths(context.workspace).launchPrompt}; the lifecycle is in state \`${context.state}\`.
`;
}
