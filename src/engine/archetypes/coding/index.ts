import type { SnapshotFrom } from 'xstate';
import { worktreeBranch } from '../../../core/layout.js';
import { machineEntry } from '../../../../machines/catalog.js';
import {
  CODING_MACHINE_ID,
  CODING_MACHINE_VERSION,
  getCodingMachine,
  type CodingMachine,
} from '../../../../machines/coding.machine.js';
import { CODING_WORK_STATES, codingEventSchema } from '../../../../machines/coding.types.js';
import { gitSucceeds } from '../../registry/git.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Archetype } from '../archetype.js';
import { codingContextSchema, isWellFormedCodingContext } from './context-schema.js';
import { codingModelTest } from './model-samples.js';
// Old snapshots load: the migrations of the coding lifecycle register with the archetype.
import './snapshot-migration.js';

export const codingEntry = machineEntry(getCodingMachine, CODING_MACHINE_ID, CODING_MACHINE_VERSION, codingEventSchema);

/**
 * A team that changes the codebase on its own branch (`fed/<domain>`, worktree placement) until meta
 * merges it (docs/design/spec.md §3.2): plan, implement, commit, test (a failing run loops back), ask for review; meta
 * reviews (`fed team review`), requests changes (back to implementing) or approves, and merges
 * (`fed team merge`). Complete once merged and cleaned up.
 */
export const codingArchetype: Archetype<CodingMachine> = {
  id: 'coding',
  summary: 'changes the codebase on its branch fed/<domain> until meta reviews and merges it',
  lifecycle: codingEntry,
  contextSchema: codingContextSchema,
  isWellFormedContext: isWellFormedCodingContext,
  workStates: CODING_WORK_STATES,
  readOnlyCodebase: false,
  producesDocument: false,
  builtInAgent: false,
  agentBrief: codingBrief,
  completion: {
    settled: (snapshot, team) => {
      const next = metaNext(String(snapshot.value), team.domainId);
      if (snapshot.value === 'complete') return { outcome: 'complete' };
      return next ? { outcome: 'waiting', next, forMeta: true } : undefined;
    },
    completionReport: async (context, snapshot) => {
      const { mergeCommit } = snapshot.context;
      return {
        subject: `change merged: ${context.mission.subject}`,
        body: `Team ${context.team} finished "${context.mission.subject}": merged as ${mergeCommit ?? '(unknown commit)'}, worktree and branch cleaned up.`,
      };
    },
  },
  healthProblems: ({ team, state }) => {
    // A change in review must still be there to review.
    if (!['pr-open', 'pr-review', 'pr-approved'].includes(state) || team.placementType !== 'worktree') return [];
    const branch = worktreeBranch(team.domain);
    const root = team.location;
    return gitSucceeds(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])
      ? []
      : [`branch ${branch} is gone, so the change in ${state} cannot be reviewed or merged`];
  },
  modelTest: codingModelTest,
};

/** What meta does next when the team waits for it, or undefined while the team itself has work left. */
function metaNext(state: string, team: string): string | undefined {
  switch (state) {
    case 'pr-review':
      return `review the change: fed team review ${team}, then --approve or --request-changes "<what>"`;
    case 'pr-approved':
      return `merge it: fed team merge ${team}`;
    case 'merged':
      return `finish the merge (clean up): fed team merge ${team}`;
    default:
      return undefined;
  }
}

function codingBrief(context: LaunchContext, snapshot: SnapshotFrom<CodingMachine>, team: RegistryEntry): string {
  const branch = worktreeBranch(team.domain);
  const review = snapshot.context.lastReview;
  const requested =
    review?.outcome === 'changes-requested' && snapshot.value === 'implementing'
      ? `\nThe reviewer requested changes — make them first:\n${review.comments.map((c) => `- ${c}`).join('\n')}\n`
      : '';
  return `You change the codebase in your worktree ${context.codebase}, on its branch \`${branch}\`, and get the change merged.

1. Plan the change from the mission; report the tasks.
2. Implement it, and commit on \`${branch}\` (never on another branch, never push or merge yourself).
3. Run the project's tests and report how many passed and failed; if any failed, fix and commit again.
4. When they all pass, ask for review (pullRequest: \`${branch}\`) and stop. Meta reviews the branch
   (\`fed team review\`): it approves and merges it, or requests changes — then your next launch finds them
   as a directive in your inbox, in state implementing.
${requested}`;
}
