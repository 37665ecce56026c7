import { statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import {
  appendLearningEntries,
  checkAnalysedMarkdown,
  DEFAULT_FEDERATION_REPORT,
  ensureDirectory,
  type LaunchContext,
  MAX_DELIVERABLE_BYTES,
  readFileBounded,
  RefusedError,
  writeFileAtomic,
} from 'fed/agent';
import { projectNames, surveyCodebase, topLevelSources } from 'fed/survey';
import type { ReportEvent } from './fed-event.js';
import { afterReports, reportsInOrder, type ReportsInOrder } from './reports-in-order.js';
import { gatherAreaFacts } from './area-facts.js';
import { renderAreaDocument } from './area-render.js';
import { findAreas } from './area-scope.js';
import { selectExcerpt } from './excerpt.js';
import { traceFlowPaths } from './flow-trace.js';
import { distillInsights } from './insights.js';
import { learningEntries, missionEntries } from './learning-entries.js';
import { searchMission, type TopicAnswer } from './mission-search.js';
import { planOutline, standingOutline, withOverview } from './outline.js';
import { renderDeliverable } from './render-markdown.js';

/**
 * The built-in agent's work (docs/design/spec.md §2.7: gather, analyse, write), one lifecycle state at a time, starting
 * from the state the launch context says: a relaunch after a pause re-derives what the earlier states
 * produced (the survey is read-only and deterministic) and reports only the events still due. Each state's
 * event is sent before the next state's work starts, and applied before that work leaves a trace (a log
 * line, a file, the next event, the outcome), so the lifecycle always says where the agent is
 * (`reportsInOrder`).
 */
export interface AgentIo {
  report: ReportEvent;
  /** Progress for the agent log. */
  log: (line: string) => void;
  now: () => Date;
  /** The federation report's path (config `federationReport`); the root's default name when not given. */
  federationReport?: string;
}

export type AgentOutcome =
  | { status: 'complete'; path: string; bytes: number }
  | { status: 'failed'; reason: string }
  /** A fix attempt with nothing to change: its fullest document is the one fed refused (the refusal stands). */
  | { status: 'unfixed'; reason: string }
  | { status: 'already-complete' };

const WORK_STATES = ['preparing', 'scanning', 'distilling', 'aggregating'] as const;
const SKIPPED = '.git/, .fed/, federate.config.json, the federation report, node_modules/ and what .gitignore ignores';

/** The spec's failure conditions (§3.1), which every FAIL reason starts with. */
export const FAILURE = {
  nothingFound: 'required information cannot be found',
  unreadable: 'source files corrupted or inaccessible',
  noStructure: 'document structure cannot be determined',
} as const;

export function codebaseProblem(codebase: string): string | undefined {
  try {
    return statSync(codebase).isDirectory() ? undefined : `the codebase ${codebase} is not a directory`;
  } catch (error) {
    return `the codebase ${codebase} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

/** Whether the deliverable on disk is `markdown` already (a missing or unreadable one is not). */
function sameDocument(path: string, markdown: string): boolean {
  try {
    const read = readFileBounded(path, { maxBytes: MAX_DELIVERABLE_BYTES });
    return read.ok && read.bytes.toString('utf8') === markdown;
  } catch {
    return false;
  }
}

/** What the mission asked that the codebase does not say, and what it says instead, for the FAIL reason. */
function notFound(answer: TopicAnswer): string {
  const { topic } = answer;
  const quote = (items: readonly string[]) => items.map((item) => `"${item}"`).join(', ');
  const paths = answer.missing.filter((m) => topic.paths.includes(m));
  const words = answer.missing.filter((m) => !topic.paths.includes(m));
  const nowhere = (of: readonly string[]) =>
    of.length ? ` (${quote(of)} ${of.length === 1 ? 'appears' : 'appear'} nowhere)` : '';
  const mainWords = (topic.main ?? []).map((t) => topic.words[topic.terms.indexOf(t)] ?? t);
  const what = paths.length
    ? `no file or folder ${quote(paths)} exists`
    : topic.exact
      ? `no file mentions ${quote(words)}`
      : mainWords.length
        ? `its main subject is absent: no file mentions most of ${quote(mainWords)}${nowhere(words.filter((w) => mainWords.includes(w)))}`
        : `no file mentions most of ${quote(topic.words)}${nowhere(words)}`;
  const looked = topic.terms.length ? ` (looked for words starting ${topic.terms.map((t) => `${t}…`).join(', ')})` : '';
  const instead = answer.foundInstead.map(
    (use) => `"${use.word}" ${use.only ? `appears only as "${use.only}"` : 'appears'} in ${use.files.join(', ')}`,
  );
  const found = instead.length ? `; found instead: ${instead.join('; ')}` : '';
  return `the mission asks about "${topic.title}" (in "${topic.source}"), but ${what}${looked}${found}`;
}

export async function runAgent(context: LaunchContext, domain: string, io: AgentIo): Promise<AgentOutcome> {
  const reports = reportsInOrder(io.report);
  // Whatever the outcome, the last report was applied (or refused) before the agent says it is done.
  return afterReports(reports, work(context, domain, io, reports));
}

async function work(
  context: LaunchContext,
  domain: string,
  io: AgentIo,
  reports: ReportsInOrder,
): Promise<AgentOutcome> {
  if (context.state === 'complete') return { status: 'already-complete' };
  const start = WORK_STATES.indexOf(context.state as (typeof WORK_STATES)[number]);
  if (start === -1) {
    throw new RefusedError(
      'AGENT_STATE',
      `team "${context.team}" is ${context.state}; fed-agent works in ${WORK_STATES.join(', ')} (resume a paused team first; failed is final)`,
    );
  }
  const due = (state: (typeof WORK_STATES)[number]) => start <= WORK_STATES.indexOf(state);
  const fail = async (reason: string): Promise<AgentOutcome> => {
    await reports.applied();
    io.log(`failing: ${reason}`);
    await reports.send('FAIL', { reason });
    return { status: 'failed', reason };
  };

  // preparing: plan the document from the mission; the sources are what the scan will study.
  const problem = codebaseProblem(context.codebase);
  if (problem) return fail(`${FAILURE.unreadable}: ${problem}`);
  const sources = topLevelSources(context.codebase);
  if (sources.length === 0)
    return fail(`${FAILURE.nothingFound}: the codebase ${context.codebase} has nothing to study (skipping ${SKIPPED})`);
  const planned = planOutline(context.mission, sources, projectNames(context.codebase).join(' '));
  if (due('preparing')) {
    const topics = planned.topics.length
      ? `, answering ${planned.topics.map((t) => `"${t.title}"`).join(', ')}${planned.sections.length ? ', then the overview' : ''}`
      : '';
    io.log(
      `preparing: ${/^[aeiou]/.test(planned.kind) ? 'an' : 'a'} ${planned.kind} document for "${context.mission.subject}" from ${sources.length} sources${topics}`,
    );
    await reports.send('PLAN_READY', { sources });
  }

  // scanning: read every file once; what was learned goes to the learning log.
  const survey = surveyCodebase(context.codebase);
  if (survey.files.length === 0 && survey.unreadable.length === 0) {
    return fail(`${FAILURE.nothingFound}: no files in ${context.codebase} (skipping ${SKIPPED})`);
  }
  if (survey.files.length === 0) {
    const examples = survey.unreadable
      .slice(0, 3)
      .map((u) => `${u.path}: ${u.reason}`)
      .join('; ');
    return fail(`${FAILURE.unreadable}: none of the ${survey.unreadable.length} files could be read (${examples})`);
  }
  // The mission's topics are looked up in what was read; one that nothing mentions cannot be answered.
  const search = searchMission(survey, planned.topics);
  const outline = standingOutline(
    planned,
    context.mission,
    search.answers.map((a) => a.topic),
  );
  const unanswered = search.answers.filter((a) => !a.answered);
  if (due('scanning')) {
    await reports.applied();
    appendLearningEntries(context.learningLogPath, [
      ...learningEntries(survey, domain, io.now()),
      ...missionEntries(search, domain, io.now()),
    ]);
    io.log(`scanning: read ${survey.files.length} files (${survey.unreadable.length} unreadable)`);
    const dropped = planned.topics.filter((t) => !outline.topics.some((kept) => kept.source === t.source));
    // Open phrasing the codebase names nowhere was how to write, not what about (MissionTopic.tentative).
    if (dropped.length)
      io.log(
        `scanning: read ${dropped.map((t) => `"${t.title}"`).join(', ')} as instruction: the codebase names none of its words`,
      );
  }
  if (unanswered.length)
    return fail(
      `${FAILURE.nothingFound}: ${unanswered.map(notFound).join('; ')} (searched the paths, declared names and text of ${search.searched} code and documentation files, skipping ${SKIPPED})`,
    );
  if (due('scanning')) await reports.send('SCAN_COMPLETE', { filesRead: survey.files.length });

  // distilling: the key findings, and the code excerpt the document shows.
  const insights = distillInsights(survey, search);
  const excerpt = selectExcerpt(survey);
  if (due('distilling')) {
    await reports.applied();
    io.log(`distilling: ${insights.length} key findings`);
    await reports.send('INSIGHTS_READY', { insights });
  }

  // aggregating: write the document, checked against the documentation standards first. A fix attempt
  // (fed refused the last one, context.fix) writes the fullest document it can: the overview too.
  const input = {
    survey,
    outline: context.fix ? withOverview(outline) : outline,
    search,
    insights,
    excerpt,
    mission: context.mission,
    flows: search.answers.map((answer) => traceFlowPaths(survey, answer)),
  };
  // A mission naming an area (a package or folder, as `fed plan` gives each team) gets a document about that area.
  const { areas } = findAreas(survey, outline.topics);
  const doc = areas.length
    ? renderAreaDocument({
        ...input,
        areas: areas.map((area) => gatherAreaFacts(area, survey)),
        federationReport: relative(
          dirname(context.deliverablePath),
          io.federationReport ?? join(context.root, DEFAULT_FEDERATION_REPORT),
        ),
        repositoryOverview: context.fix !== undefined,
      })
    : renderDeliverable(input);
  const markdown = doc.text;
  const unchanged = context.fix !== undefined && sameDocument(context.deliverablePath, markdown);
  const check = checkAnalysedMarkdown(doc);
  await reports.applied();
  if (context.fix && unchanged) {
    const reason = `${context.fix.reason} (fed-agent has no fuller document to write)`;
    io.log(`cannot fix: ${reason}`);
    return { status: 'unfixed', reason };
  }
  if (!check.ok) {
    return fail(
      `${FAILURE.noStructure}: ${check.violations.map((v) => `line ${v.line}: ${v.rule}: ${v.message}`).join('; ')}`,
    );
  }
  ensureDirectory(dirname(context.deliverablePath));
  writeFileAtomic(context.deliverablePath, markdown);
  const bytes = Buffer.byteLength(markdown, 'utf8');
  io.log(
    `aggregating: ${context.fix ? `fix attempt ${context.fix.attempt} of ${context.fix.of}: rewrote ${context.deliverablePath} with the overview, for ${context.fix.violations.length} violation(s)` : `wrote ${context.deliverablePath}`} (${bytes} bytes)`,
  );
  await reports.send('DOCUMENT_WRITTEN', { path: context.deliverable, bytes });
  return { status: 'complete', path: context.deliverablePath, bytes };
}
