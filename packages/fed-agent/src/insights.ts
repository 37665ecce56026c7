import { agree, code, count, escapeText, folderRef, plural } from './markdown-text.js';
import type { MissionSearch, TopicAnswer } from './mission-search.js';
import type { Survey } from 'fed/survey';

/**
 * The key findings (docs/design/spec.md §3.1 "distilling"): the few facts a newcomer should know first, one Markdown
 * sentence each, most important first. They are reported with INSIGHTS_READY and open the document.
 */
const MAX_INSIGHTS = 8;

function languageInsight(survey: Survey): string | undefined {
  const primary = survey.languages.find((l) => l.kind === 'code');
  if (!primary) return undefined;
  return `${code(survey.name)} is mostly ${primary.name}: ${count(primary.files)} of ${plural(survey.totals.files, 'file')} and ${count(primary.lines)} of ${count(survey.totals.lines)} lines.`;
}

function entryInsight(survey: Survey): string | undefined {
  const entry = survey.entryPoints[0];
  if (!entry) return undefined;
  return `Execution starts in ${code(entry.path)}, ${entry.confidence === 'high' ? escapeText(entry.reason) : `probably (${escapeText(entry.reason)})`}.`;
}

function buildInsight(survey: Survey): string | undefined {
  const manifest = survey.manifests[0];
  if (!manifest)
    return 'No build manifest (package.json, pyproject.toml, go.mod, Cargo.toml) was found, so how to build it is not declared.';
  const scripts = Object.keys(manifest.scripts);
  const scriptPart = scripts.length
    ? ` and defines ${plural(scripts.length, 'script')} (${scripts.slice(0, 4).map(code).join(', ')})`
    : '';
  return `${code(manifest.path)} declares ${plural(manifest.dependencies.length, 'runtime dependency', 'runtime dependencies')} and ${plural(manifest.devDependencies.length, 'development dependency', 'development dependencies')}${scriptPart}.`;
}

function packagesInsight(survey: Survey): string | undefined {
  const { list, edges } = survey.packages;
  if (list.length < 2) return undefined;
  return `It is a monorepo of ${plural(list.length, 'package')} (${list
    .slice(0, 5)
    .map((p) => code(p.name))
    .join(
      ', ',
    )}${list.length > 5 ? ', …' : ''}) with ${plural(edges.length, 'dependency', 'dependencies')} between them.`;
}

/** One finding per mission topic: where its answer is, or the chain it flows through. */
function topicInsight(answer: TopicAnswer): string | undefined {
  const best = answer.files[0];
  if (!best) return undefined;
  const asked = escapeText(answer.topic.title);
  if (answer.chain) return `For “${asked}”, the imports run ${answer.chain.files.map(code).join(' → ')}.`;
  return `For “${asked}”, the best match is ${code(best.path)} (by ${best.matchedBy.join(', ')}).`;
}

function testInsight(survey: Survey): string {
  const { tests } = survey;
  if (tests.files === 0) return 'No test files were found.';
  const where = tests.folders
    .slice(0, 3)
    .map((f) => folderRef(f.path))
    .join(', ');
  const runner = tests.runner ? ` run with ${tests.runner}${tests.command ? ` (${code(tests.command)})` : ''}` : '';
  return `${plural(tests.files, 'test file')} under ${where}${runner}.`;
}

function dependencyInsight(survey: Survey): string | undefined {
  const { hub } = survey.graph;
  if (!hub) return undefined;
  return `${code(hub.label)} is the most depended-on module group: ${plural(hub.dependents, 'other group')} ${agree(hub.dependents, 'imports', 'import')} from it.`;
}

function externalInsight(survey: Survey): string | undefined {
  const top = survey.graph.external.slice(0, 3);
  if (top.length === 0) return undefined;
  return `The most imported external packages are ${top.map((p) => `${code(p.name)} (${plural(p.files, 'file')})`).join(', ')}.`;
}

function hotspotInsight(survey: Survey): string {
  const top = survey.todos[0];
  if (!top) return 'No TODO, FIXME or HACK markers were found in comments.';
  return `${code(top.path)} has the most TODO/FIXME markers: ${count(top.count)} of ${count(survey.todoCount)} in the codebase.`;
}

function unreadableInsight(survey: Survey): string | undefined {
  if (survey.unreadable.length === 0) return undefined;
  return `${plural(survey.unreadable.length, 'file')} could not be read and ${survey.unreadable.length === 1 ? 'is' : 'are'} listed under "Files that could not be read".`;
}

/** The mission's answers first, then what every newcomer should know. */
export function distillInsights(survey: Survey, search: MissionSearch = { answers: [], searched: 0 }): string[] {
  const general = [
    languageInsight,
    packagesInsight,
    unreadableInsight,
    entryInsight,
    buildInsight,
    testInsight,
    dependencyInsight,
    externalInsight,
    hotspotInsight,
  ].map((insight) => insight(survey));
  return [...search.answers.map(topicInsight), ...general]
    .filter((text): text is string => text !== undefined)
    .slice(0, MAX_INSIGHTS);
}
