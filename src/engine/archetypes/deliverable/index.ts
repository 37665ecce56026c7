import { statSync } from 'node:fs';
import { join } from 'node:path';
import { machineEntry } from '../../../../machines/catalog.js';
import {
  DELIVERABLE_MACHINE_ID,
  DELIVERABLE_MACHINE_VERSION,
  getDeliverableMachine,
  type DeliverableMachine,
} from '../../../../machines/deliverable.machine.js';
import { DELIVERABLE_WORK_STATES, deliverableEventSchema } from '../../../../machines/deliverable.types.js';
import type { Archetype } from '../archetype.js';
import { deliverableCompletion } from './completion.js';
import { deliverableContextSchema, isWellFormedDeliverableContext } from './context-schema.js';
import { deliverableModelTest } from './model-samples.js';

export const deliverableEntry = machineEntry(
  getDeliverableMachine,
  DELIVERABLE_MACHINE_ID,
  DELIVERABLE_MACHINE_VERSION,
  deliverableEventSchema,
);

/** A team that studies the codebase read-only and writes one Markdown deliverable (docs/design/spec.md §3.1). */
export const deliverableArchetype: Archetype<DeliverableMachine> = {
  id: 'deliverable',
  summary: 'studies the codebase read-only and writes a Markdown deliverable that passes fed deliverable check',
  lifecycle: deliverableEntry,
  contextSchema: deliverableContextSchema,
  isWellFormedContext: isWellFormedDeliverableContext,
  workStates: DELIVERABLE_WORK_STATES,
  readOnlyCodebase: true,
  producesDocument: true,
  builtInAgent: true,
  agentBrief: (context) => `You study the codebase at ${context.codebase} read-only and write one Markdown document.

- Write the deliverable to: ${context.deliverablePath} (it must pass \`fed deliverable check\`: a DOCUMENT_WRITTEN it does not pass is refused with the violations — fix them and send it again; the team fails when they stay).
- Append findings to the learning log (JSON lines: timestamp, domain, category, content, tags, confidence): ${context.learningLogPath}
- Never modify, create or delete anything outside your workspace (${context.workspace}). Where the sandbox is available the codebase is mounted read-only (a write fails with EROFS); otherwise the launcher checks, and a modified codebase fails the team.
- If the required information cannot be found, sources are corrupted or inaccessible, or the document structure cannot be determined, report FAIL with the reason and stop.`,
  completion: deliverableCompletion,
  healthProblems: ({ team, state, config }) => {
    if (state !== 'complete') return [];
    const size = statSync(join(team.location, config.deliverable), { throwIfNoEntry: false })?.size;
    if (size === undefined) return [`deliverable ${config.deliverable} is missing`];
    return size === 0 ? [`deliverable ${config.deliverable} is empty`] : [];
  },
  modelTest: deliverableModelTest,
};
