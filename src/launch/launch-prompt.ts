import { existsSync, readFileSync } from 'node:fs';
import { lifecycleFor } from '../../machines/catalog.js';
import { playbookSkillFile } from '../config/referenced-files.js';
import type { FederationConfig } from '../schema/config.js';
import type { LaunchContext } from '../schema/launch-context.js';

/**
 * The launch prompt: everything an agent (an LLM session or the built-in one) needs to do the team's
 * job — the mission, the playbook skill, the deliverable, and the protocol: which `fed event` to send
 * at each step, how to send signals, how to acknowledge them.
 */
export function playbookSkillPath(root: string, config: FederationConfig): string | null {
  const path = playbookSkillFile(root, config);
  return existsSync(path) ? path : null;
}

const PROGRESS: Record<string, string[]> = {
  deliverable: [
    '`fed event PLAN_READY --data \'{"sources": ["src", "docs"]}\'` — mission read, structure planned, sources identified (preparing → scanning)',
    '`fed event SCAN_COMPLETE --data \'{"filesRead": 42}\'` — relevant files read, findings logged (scanning → distilling; 0 files means the information cannot be found and fails the team)',
    '`fed event INSIGHTS_READY --data \'{"insights": ["..."]}\'` — patterns identified (distilling → aggregating)',
    '`fed event DOCUMENT_WRITTEN --data \'{"path": "<deliverable>", "bytes": 1234}\'` — deliverable written (aggregating → complete; the document is checked first)',
  ],
  coding: [
    '`fed event PLAN_READY --data \'{"tasks": ["..."]}\'` (preparing → implementing)',
    '`fed event CHANGES_COMMITTED --data \'{"commit": "<sha>"}\'` (implementing → testing)',
    '`fed event TESTS_COMPLETE --data \'{"passed": 10, "failed": 0}\'` (testing → pr-open, or back to implementing when tests fail)',
    '`fed event REVIEW_REQUESTED --data \'{"pullRequest": "<url>"}\'`, then `CHANGES_REQUESTED`, `PR_APPROVED --data \'{"reviewer": "..."}\'`, `PR_MERGED --data \'{"commit": "<sha>"}\'`, `CLEANUP_DONE`',
  ],
};

export function renderLaunchPrompt(context: LaunchContext): string {
  const entry = lifecycleFor(context.archetype);
  const skill = context.playbookSkillPath ? readFileSync(context.playbookSkillPath, 'utf8').trim() : undefined;
  const readOnly = context.archetype === 'deliverable'
    ? `\nYou study the codebase at ${context.codebase} read-only: never modify, create or delete anything outside your workspace (${context.workspace}). Where the sandbox is available the codebase is mounted read-only (a write fails with EROFS); otherwise the launcher checks, and a modified codebase fails the team.\n`
    : '';
  return `# Mission for team ${context.team}

${context.mission.subject}

${context.mission.body || '(no further details)'}

## Where you are

- Your workspace (working directory, the only place you write): ${context.workspace}
- The codebase you work on: ${context.codebase}
- Write the deliverable to: ${context.deliverablePath}
- Append findings to the learning log (JSON lines: timestamp, domain, category, content, tags, confidence): ${context.learningLogPath}
- Your lifecycle (${entry?.id ?? context.archetype}) is now in state \`${context.state}\`; continue from there.
${readOnly}
## Protocol

Report every step of your lifecycle with \`fed event\` (the team is implied by your workspace and $FED_TEAM):

${(PROGRESS[context.archetype] ?? []).map((line) => `1. ${line}`).join('\n')}

If you cannot go on (required information cannot be found, sources are corrupted or inaccessible, the
document structure cannot be determined), report it and stop:
\`fed event FAIL --data '{"reason": "<what went wrong>"}'\`.

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
