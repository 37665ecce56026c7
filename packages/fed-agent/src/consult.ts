import { v5 as uuidv5 } from 'uuid';
import { answerSubject, type LaunchContext, META, type Question } from 'fed/agent';
import { projectNames, type Survey, surveyCodebase } from 'fed/survey';
import { flowText } from './flow-render.js';
import { traceFlow } from './flow-trace.js';
import { planMission } from './mission-plan.js';
import { searchMission } from './mission-search.js';
import { afterReports, reportsInOrder, type ReportsInOrder } from './reports-in-order.js';
import { codebaseProblem, FAILURE, type AgentIo } from './run-agent.js';

/**
 * The built-in agent serving a consultant team: it indexes the codebase once per run (the read-only
 * survey the deliverable agent makes), then answers the question its lifecycle is researching, and the
 * next one, until none is left — each with a report signal to the asker that names the matching files
 * and excerpts, or says plainly that nothing in the codebase matched. It never asks for clarification.
 */
export interface ConsultIo extends AgentIo {
  /** The lifecycle as it is now: its state and the question being researched. */
  lifecycle: () => Promise<{ state: string; current: Question | null }>;
  /** The body of a question signal in the team's inbox ('' when it is gone). */
  questionBody: (signalId: string) => Promise<string>;
  /** Run a `fed` command as the team (signal send), returning its output. */
  fed: (args: string[]) => Promise<string>;
}

export type ConsultOutcome = { status: 'waiting'; answered: number } | { status: 'failed'; reason: string };

/** Answers get ids derived from their question, so an answer re-sent after a crash is delivered once. */
const ANSWER_NAMESPACE = '5b0f3d4e-8a43-4f0e-9c61-3e2d7a9b1c20';

const INDEXING = ['onboarding', 'indexing'];

export function runConsultant(context: LaunchContext, io: ConsultIo): Promise<ConsultOutcome> {
  // INDEXING_STARTED is applied while the codebase is indexed (reports-in-order.ts); the rest wait their turn.
  const reports = reportsInOrder(io.report);
  return afterReports(reports, consult(context, io, reports));
}

async function consult(context: LaunchContext, io: ConsultIo, reports: ReportsInOrder): Promise<ConsultOutcome> {
  const fail = async (reason: string): Promise<ConsultOutcome> => {
    await reports.applied();
    io.log(`failing: ${reason}`);
    await reports.send('FAIL', { reason });
    return { status: 'failed', reason };
  };
  if (context.state === 'onboarding') await reports.send('INDEXING_STARTED', {});
  const problem = codebaseProblem(context.codebase);
  if (problem) return fail(`${FAILURE.unreadable}: ${problem}`);
  const survey = surveyCodebase(context.codebase);
  if (survey.files.length === 0) return fail(`${FAILURE.nothingFound}: no files to index in ${context.codebase}`);
  await reports.applied();
  io.log(`indexed ${survey.files.length} files`);
  if (INDEXING.includes(context.state)) await io.report('INDEX_READY', { filesIndexed: survey.files.length });

  const projectName = projectNames(context.codebase).join(' ');
  let answered = 0;
  let last: string | undefined;
  for (;;) {
    const { state, current } = await io.lifecycle();
    // Anything but a question being researched (ready, a clarification, paused, over) ends this run.
    if (state !== 'researching' || !current || current.signalId === last) break;
    last = current.signalId;
    const text = answerQuestion(survey, projectName, {
      subject: current.subject,
      body: await io.questionBody(current.signalId),
    });
    const reportId = uuidv5(`${context.team}/${current.signalId}`, ANSWER_NAMESPACE);
    await io.fed([
      'signal',
      'send',
      '--from',
      context.team,
      '--to',
      current.from ?? META,
      '--type',
      'report',
      '--reply-to',
      current.signalId,
      '--subject',
      answerSubject(current.subject),
      '--body',
      text,
      '--id',
      reportId,
    ]);
    io.log(`answered "${current.subject}" (${current.signalId}) to ${current.from ?? META}`);
    await io.report('ANSWER_SENT', { reportId });
    answered++;
  }
  return { status: 'waiting', answered };
}

/**
 * The answer to one question from the index: for each thing it asks about, the files that match best
 * with a few quoted lines, or a plain statement that nothing matched and what was looked for.
 */
export function answerQuestion(
  survey: Survey,
  projectName: string,
  question: { subject: string; body: string },
): string {
  const { topics } = planMission(question, projectName);
  if (topics.length === 0) {
    return `I found nothing to look up: the question names no file, name or behaviour of the codebase (it only asks about the project in general). Ask about something specific, like a file, a function or "how does X work".`;
  }
  // A question put to the consultant asks about each of its words, found or not: none is tentative.
  const search = searchMission(
    survey,
    topics.map(({ tentative: _, ...topic }) => topic),
  );
  const quote = (items: readonly string[]) => items.map((item) => `"${item}"`).join(', ');
  const sections = search.answers.map((answer) => {
    const { topic, files, missing, chain } = answer;
    // Unlike a mission, a question is answered with whatever matches; only no match at all is "nothing".
    if (files.length === 0) {
      return `## ${topic.title}\n\nI found nothing in the codebase that answers this: no file's path, declared names or text matches ${quote([...topic.paths, ...topic.words])}.`;
    }
    const listed = files.map((file) => {
      // An excerpt is a few lines from `line` on: each quoted indented under where it is.
      const quotes = file.excerpts
        .map(
          (q) =>
            `  ${file.path}:${q.line}:\n${q.text
              .replace(/\s+$/, '')
              .split('\n')
              .map((l) => `      ${l}`)
              .join('\n')}`,
        )
        .join('\n');
      return `- ${file.path} (matches ${file.terms.join(', ') || 'the path'})${quotes ? `\n${quotes}` : ''}`;
    });
    const unmatched = missing.length ? `\n(No file mentions ${quote(missing)}.)` : '';
    const path = chain?.files.length ? `\nThe path it takes: ${chain.files.join(' → ')}` : '';
    const flow = traceFlow(survey, answer);
    const calls = flow ? `\n\n${flowText(flow)}` : '';
    return `## ${topic.title}\n\nThe files that match best:\n${listed.join('\n')}${path}${unmatched}${calls}`;
  });
  return `${sections.join('\n\n')}\n\n(Searched the paths, declared names and text of ${search.searched} code and documentation files.)`;
}
