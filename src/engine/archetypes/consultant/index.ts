import { machineEntry } from '../../../../machines/catalog.js';
import {
  CONSULTANT_MACHINE_ID,
  CONSULTANT_MACHINE_VERSION,
  getConsultantMachine,
  type ConsultantMachine,
} from '../../../../machines/consultant.machine.js';
import { CONSULTANT_WORK_STATES, consultantEventSchema } from '../../../../machines/consultant.types.js';
import { META } from '../../../core/schema/common.js';
import type { Archetype } from '../archetype.js';
import { answerSubject } from './answer-reference.js';
import { consultantContextSchema, isWellFormedConsultantContext } from './context-schema.js';
import { consultantModelTest } from './model-samples.js';

export const consultantEntry = machineEntry(
  getConsultantMachine,
  CONSULTANT_MACHINE_ID,
  CONSULTANT_MACHINE_VERSION,
  consultantEventSchema,
);

/**
 * A long-lived team that answers questions about a codebase: it indexes the codebase once, then takes
 * question signals one at a time (the others queue in order) and answers each with a report signal to
 * the asker. It never completes; meta retires it (a `retire` directive).
 */
export const consultantArchetype: Archetype<ConsultantMachine> = {
  id: 'consultant',
  summary: 'indexes the codebase once, then answers question signals with report signals until meta retires it',
  lifecycle: consultantEntry,
  contextSchema: consultantContextSchema,
  isWellFormedContext: isWellFormedConsultantContext,
  workStates: CONSULTANT_WORK_STATES,
  // It reads the codebase to answer; it has no reason to change it.
  readOnlyCodebase: true,
  producesDocument: false,
  builtInAgent: true,
  agentBrief: (context) => `You answer questions about the codebase at ${context.codebase}; you never change it.

1. Index the codebase once (INDEXING_STARTED, then INDEX_READY with the number of files indexed).
2. Questions arrive as question signals (\`fed signal list --unacked --type question\`); your lifecycle takes
   them one at a time in arrival order (\`fed team show\` names the current one). Research it, then answer the
   asker (the question's \`from\`) with a report that answers it (\`--reply-to\` records which question):
   \`fed signal send --to <asker> --type report --reply-to <question id> --subject "${answerSubject('<question subject>')}" --body "<answer>"\`
   Name the files (and lines) your answer rests on; if you found nothing, say so plainly. Then report
   ANSWER_SENT with the report's id and acknowledge the question.
3. If you cannot answer without the asker clarifying, send them a question signal and report
   CLARIFICATION_REQUESTED; their reply (any signal from them) moves you back to researching.
4. When no question is waiting, stop: you are launched again when questions arrive.${
    context.mcpServer
      ? "\n\nWith fed's MCP tools: `fed_inbox` lists the questions, `fed_send` answers (its `replyTo` is the question's id), `fed_event` reports ANSWER_SENT, `fed_ack` acknowledges."
      : ''
  }`,
  signalEvent: (message, snapshot) => {
    const at = message.timestamp;
    if (message.type === 'directive' && message.from === META && message.subject.trim().toLowerCase() === 'retire')
      return { type: 'RETIRE', at };
    // The asker's reply to a clarification request: any signal from them while the team waits for it.
    const asker = snapshot.context.current?.from;
    if (snapshot.value === 'waiting-for-feedback' && message.from === asker)
      return { type: 'FEEDBACK_RECEIVED', signalId: message.id, subject: message.subject, at };
    return undefined;
  },
  completion: {
    settled: (snapshot, team) => {
      if (snapshot.value === 'retired') return { outcome: 'complete' };
      if (snapshot.value === 'ready')
        return {
          outcome: 'waiting',
          next: `ask it: fed signal send --to ${team.domainId} --type question --subject "<question>", then fed launch --team ${team.domainId}`,
        };
      if (snapshot.value === 'waiting-for-feedback') {
        const asker = snapshot.context.current?.from ?? 'the asker';
        return {
          outcome: 'waiting',
          next: `${asker} replies to the clarification request (any signal to ${team.domainId}), then fed launch --team ${team.domainId}`,
        };
      }
      return undefined;
    },
    completionReport: async (context, snapshot) => ({
      subject: `consultant retired: ${context.mission.subject}`,
      body: `Team ${context.team} is retired after answering ${snapshot.context.answered} question(s).`,
    }),
  },
  healthProblems: ({ snapshot, state }) => {
    const queued = snapshot.context.queue.length;
    return state === 'paused' && queued > 0 ? [`${queued} question(s) wait while the team is paused`] : [];
  },
  modelTest: consultantModelTest,
};
