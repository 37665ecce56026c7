/**
 * The entry for agent programs fed launches (`import … from 'fed/agent'`): what the built-in agent
 * (packages/fed-agent) takes from fed, and any agent program built on fed may. An agent program talks to
 * fed through its launch contract — the launch context, the broker, `fed` on its PATH — and reads its own
 * team as fed keeps it; it reaches nothing else of fed. What it learns of the codebase comes from the
 * survey (`fed/survey`), and how it ends with its launcher from `fed/lifeline`, kept apart because the
 * agent's small executable loads it before anything else.
 *
 * A program that imports this entry parses with zod as fed's own programs do: jitless (zod-jitless.ts),
 * set before any schema of fed's is built — so a program imports it before fed's other entries.
 */
import './core/schema/zod-jitless.js';

// The launch contract: the context fed launch writes, reporting lifecycle events to the launcher's
// broker (or by running `fed`), and where the federation report goes by default.
export { launchContextSchema, type LaunchContext } from './core/schema/launch-context.js';
export { BROKER_ENV, BROKER_TOKEN_ENV } from './infra/process/broker-protocol.js';
export { sendBrokerEvent } from './infra/process/broker-event.js';
export { runCaptured } from './infra/process/run-captured.js';
// In a sandbox with a network policy, its ports handed to the launcher before anything else (listener-channel.ts).
export { listenForLauncher } from './infra/process/listener-channel.js';
export { DEFAULT_FEDERATION_REPORT } from './core/schema/config.js';

// The team, as fed keeps it: its federation, its registry entry, its archetype and its lifecycle.
export { openFederation } from './engine/context.js';
export { closeOpenBackends } from './adapters/network-backends.js';
export { getTeam } from './core/find-team.js';
export { archetypeOf } from './engine/archetypes/catalog.js';
export { deliverableArchetype } from './engine/archetypes/deliverable/index.js';
export { consultantArchetype, consultantEntry } from './engine/archetypes/consultant/index.js';
export { answerSubject } from './engine/archetypes/consultant/answer-reference.js';
export { loadTeamLifecycle } from './engine/actors/team-lifecycle.js';
export { snapshotOfMachine } from '../machines/catalog.js';
export type { Question } from '../machines/consultant.types.js';
export { META } from './core/schema/common.js';

// The documents a team delivers: the documentation standards fed checks them against, and the learning log.
export {
  checkAnalysedMarkdown,
  checkMarkdownText,
  MAX_DELIVERABLE_BYTES,
} from './engine/deliverable/check-deliverable.js';
export { type AnalysedMarkdown, analyseMarkdown } from './engine/deliverable/analyse-markdown.js';
export { insertBlocks } from './engine/deliverable/insert-blocks.js';
export { TOC_WORD_LIMIT } from './engine/deliverable/documentation-rules.js';
export { appendLearningEntries } from './engine/deliverable/learning-log.js';
export type { LearningCategory, LearningConfidence, LearningEntry } from './core/schema/learning-log.js';

// Errors (every one a FedError with a stable code), and reading and writing files as fed does.
export { FedError, InvalidInputError, RefusedError } from './core/errors.js';
export { readFileBounded, type BoundedRead } from './infra/fs/read-file-bounded.js';
export { writeFileAtomic } from './infra/fs/atomic-write.js';
export { ensureDirectory } from './infra/fs/ensure-directory.js';
export { parseJsonText } from './core/json-text.js';
export { zodProblemText } from './core/schema/problems.js';
