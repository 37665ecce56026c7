import { type AnalysedMarkdown, analyseMarkdown, insertBlocks, TOC_WORD_LIMIT } from 'fed/agent';
import { OTHER_GROUP, type Survey } from 'fed/survey';
import type { Excerpt } from './excerpt.js';
import { flowPathsMarkdown } from './flow-render.js';
import type { FlowPath } from './flow-trace.js';
import {
  agree,
  bulletList,
  code,
  count,
  escapeText,
  fenced,
  folderRef,
  label,
  numberedList,
  plural,
  table,
} from './markdown-text.js';
import { PACKAGE_GRAPH_TITLE, packageGraphSection } from './package-graph.js';
import { howToRunSection, whereToStartSection } from './onboarding-sections.js';
import type { MissionSearch, TopicAnswer } from './mission-search.js';
import type { DocumentKind, Outline, SectionId } from './outline.js';

/**
 * The deliverable (docs/design/spec.md §2.6) written from a survey: title, a 2–3 sentence summary, a table of contents
 * when the text runs over 500 words, a section answering each topic of the mission (the files that match,
 * excerpts with file and line, the chain of imports for a flow question), then the overview's sections
 * in the order the outline chose, a code excerpt, Mermaid diagrams of the packages and the module
 * dependencies, and next steps — in the form the documentation standards
 * ask for, so `fed deliverable check` passes. Pure: everything it shows is in its input.
 */
export interface DeliverableInput {
  survey: Survey;
  outline: Outline;
  search: MissionSearch;
  insights: readonly string[];
  excerpt: Excerpt | null;
  mission: { subject: string; body: string };
  /** For each answer of the search (same order), its flow traced call by call — every path — when it is a flow traced. */
  flows?: readonly (FlowPath[] | null)[];
}

const MAX_TABLE_ROWS = 15;
const MAX_UNREADABLE_ROWS = 20;

const TITLES: Record<DocumentKind, (name: string) => string> = {
  architecture: (name) => `Architecture of ${name}`,
  audit: (name) => `Audit of ${name}`,
  overview: (name) => `Getting to know ${name}`,
  onboarding: (name) => `Getting started with ${name}`,
  flow: (name) => `How ${name} works`,
  reference: (name) => `Reference of ${name}`,
};

const DOCUMENT_NOUNS: Record<DocumentKind, string> = {
  overview: 'guide',
  onboarding: 'guide',
  audit: 'audit',
  architecture: 'overview',
  flow: 'overview',
  reference: 'reference',
};

const SECTION_TITLES: Record<SectionId, string> = {
  findings: 'Key findings',
  'how-to-run': 'How to build and run it',
  'start-reading': 'Where to start reading',
  packages: 'Packages',
  layout: 'Layout',
  'entry-points': 'Entry points',
  languages: 'Languages',
  dependencies: 'Module dependencies',
  'declared-dependencies': 'Declared dependencies',
  tests: 'Tests',
  hotspots: 'TODO and FIXME hotspots',
  'largest-files': 'Largest source files',
};

const percent = (part: number, whole: number) => `${whole === 0 ? 0 : Math.round((part / whole) * 100)} %`;

function missionSummary(input: DeliverableInput, first: string): string {
  const { outline, search } = input;
  const flows = search.answers.filter((a) => a.chain).length;
  const packages = outline.packageGraph
    ? `It lists the repository's ${plural(input.survey.packages.list.length, 'package')} and how they depend on each other, from their manifests${outline.topics.length ? ', then' : '.'}`
    : '';
  const answers = !outline.topics.length
    ? packages
    : `${packages ? `${packages} answers` : 'It answers'} the mission with ${plural(outline.topics.length, 'section')} built from the files whose paths, declared names and text match it best${flows ? `, and traces the chain of imports for ${plural(flows, 'flow question')}` : ''}.`;
  const rest = outline.sections.length
    ? 'The general overview for someone new to the repository follows, and it ends with where to start.'
    : 'It ends with where to read next.';
  return `${first} ${answers} ${rest}`;
}

function summary(input: DeliverableInput): string {
  const { survey, outline } = input;
  const primary = survey.languages.find((l) => l.kind === 'code');
  const first = `${code(survey.name)} is a codebase of ${plural(survey.totals.files, 'file')} and ${count(survey.totals.lines)} lines${primary ? `, mostly ${primary.name}` : ''}.`;
  if (outline.topics.length || outline.packageGraph) return missionSummary(input, first);
  const entry = survey.entryPoints[0];
  const second =
    outline.kind === 'audit'
      ? `The scan found ${plural(survey.todoCount, 'TODO or FIXME marker', 'TODO and FIXME markers')} and ${plural(survey.unreadable.length, 'file')} that could not be read.`
      : outline.kind === 'architecture' && survey.graph.groups.length > 1
        ? `Its ${plural(survey.graph.modules, 'module')} fall into ${plural(survey.graph.groups.length, 'group')}, and a diagram shows how they depend on each other.`
        : entry
          ? `Execution starts in ${code(entry.path)}, and ${survey.tests.files > 0 ? `${plural(survey.tests.files, 'test file')} ${agree(survey.tests.files, 'covers', 'cover')} it` : 'no test files were found'}.`
          : `It has ${plural(survey.manifests.length, 'build manifest')} and ${plural(survey.tests.files, 'test file')}.`;
  const third = `This ${DOCUMENT_NOUNS[outline.kind]} is for someone new to the repository and ends with where to start.`;
  return `${first} ${second} ${third}`;
}

function layout({ survey }: DeliverableInput): string {
  const rows = survey.layout
    .slice(0, MAX_TABLE_ROWS)
    .map((e) => [
      code(e.folder ? `${e.path}/` : e.path),
      count(e.files),
      count(e.lines),
      e.role ?? (e.folder ? '' : 'file'),
    ]);
  const more =
    survey.layout.length > MAX_TABLE_ROWS
      ? `\n\n${plural(survey.layout.length - MAX_TABLE_ROWS, 'smaller entry', 'smaller entries')} are not shown.`
      : '';
  return `The top level of the repository, biggest first. "Probably holds" is read from the folder's name.\n\n${table(['Path', 'Files', 'Lines', 'Probably holds'], rows)}${more}`;
}

function entryPoints({ survey, excerpt }: DeliverableInput): string {
  if (survey.entryPoints.length === 0)
    return 'No entry point was declared in a manifest, made one by its language (Go `package main`, Python `__main__.py`, Cargo `src/main.rs`) or found under a conventional name (`main`, `index`, `cli`, `app`). Examples, docs, tests and fixtures are never counted.';
  const list = bulletList(
    survey.entryPoints.map(
      (e) =>
        `${code(e.path)}: ${escapeText(e.reason)}${e.confidence === 'high' ? '' : ' (a guess from the name: check it)'}`,
    ),
  );
  if (!excerpt) return list;
  const shown =
    excerpt.shownLines < excerpt.totalLines
      ? `the first ${excerpt.shownLines} of its ${count(excerpt.totalLines)} lines`
      : 'the whole file';
  return `${list}\n\nThe first entry point, ${code(excerpt.path)} (${shown}):\n\n${fenced(excerpt.language, excerpt.text)}`;
}

function languages({ survey }: DeliverableInput): string {
  if (survey.languages.length === 0) return 'No file is in a language the survey recognises.';
  const rows = survey.languages
    .slice(0, MAX_TABLE_ROWS)
    .map((l) => [l.name, count(l.files), count(l.lines), percent(l.lines, survey.totals.lines)]);
  return `Files by language, as told by their extensions; lines include comments and blank lines.\n\n${table(['Language', 'Files', 'Lines', 'Share of lines'], rows)}`;
}

function layoutDiagram(survey: Survey): string {
  const folders = survey.layout.filter((e) => e.folder).slice(0, 14);
  const lines = [
    'flowchart TD',
    `  root[${label(survey.name)}]`,
    ...folders.map((f, i) => `  root --> f${i}[${label(`${f.path}/ (${plural(f.files, 'file')})`)}]`),
  ];
  return fenced('mermaid', lines.join('\n'));
}

function dependencies({ survey }: DeliverableInput): string {
  const { graph } = survey;
  if (graph.edges.length === 0) {
    const why =
      graph.modules === 0
        ? 'No TypeScript, JavaScript, Python or Go modules were found'
        : 'The modules do not import each other across folders';
    return `${why}, so there is no import graph to draw. The top-level folders instead:\n\n${layoutDiagram(survey)}`;
  }
  const ids = new Map(graph.groups.map((g, i) => [g.id, `m${i}`]));
  const nodes = graph.groups.map(
    (g) => `  ${ids.get(g.id)}[${label(g.id === OTHER_GROUP ? 'other folders' : g.label)}]`,
  );
  const arrows = graph.edges.map((e) => `  ${ids.get(e.from)} --> ${ids.get(e.to)}`);
  const omitted = graph.omittedEdges ? ` The ${plural(graph.omittedEdges, 'weaker link')} are left out.` : '';
  const parts = [
    `How the ${plural(graph.modules, `${graph.languages.join('/')} module`)} (tests, examples and fixtures excluded) import each other, grouped by ${graph.grouping}; an arrow reads "imports from". ${plural(graph.internalImports, 'import')} between files ${agree(graph.internalImports, 'was', 'were')} resolved.${omitted}`,
    fenced('mermaid', ['flowchart LR', ...nodes, ...arrows].join('\n')),
    table(
      ['Group', 'Files', 'Lines', 'Imported by (groups)'],
      graph.groups.map((g) => [
        g.id === OTHER_GROUP ? 'other folders' : code(g.label),
        count(g.files),
        count(g.lines),
        count(g.dependents),
      ]),
    ),
  ];
  if (graph.external.length) {
    parts.push(
      'The external packages imported most:',
      table(
        ['Package', 'Imported by (files)'],
        graph.external.slice(0, 10).map((p) => [code(p.name), count(p.files)]),
      ),
    );
  }
  return parts.join('\n\n');
}

function packages({ survey }: DeliverableInput): string {
  const { list, edges, declaredBy } = survey.packages;
  const ids = new Map(list.map((p, i) => [p.name, `p${i}`]));
  const rows = list.map((p) => [
    code(p.name),
    code(p.path === '.' ? './' : `${p.path}/`),
    p.entryPoints.length ? p.entryPoints.map(code).join(', ') : 'none found',
    `${count(p.dependencies)} runtime, ${count(p.devDependencies)} development`,
  ]);
  const parts = [
    `A monorepo of ${plural(list.length, 'package')}, as ${declaredBy.map(code).join(', ')} ${agree(declaredBy.length, 'declares', 'declare')}.`,
    table(['Package', 'Folder', 'Entry points', 'Dependencies'], rows),
  ];
  if (edges.length === 0)
    parts.push('None of the packages declares a dependency on another package of the repository.');
  else {
    const nodes = list.map((p) => `  ${ids.get(p.name)}[${label(p.name)}]`);
    const arrows = edges.map((e) => `  ${ids.get(e.from)} ${e.dev ? '-.->' : '-->'} ${ids.get(e.to)}`);
    parts.push(
      `How the packages depend on each other, from the dependencies their manifests declare; an arrow reads "depends on", a dotted one "needs for development only".`,
      fenced('mermaid', ['flowchart LR', ...nodes, ...arrows].join('\n')),
    );
  }
  return parts.join('\n\n');
}

function declaredDependencies({ survey }: DeliverableInput): string {
  const manifests = survey.manifests.filter((m) => !m.problem).slice(0, MAX_TABLE_ROWS);
  if (manifests.length === 0) return 'No build manifest declares dependencies.';
  const names = (list: readonly string[]) =>
    list.length === 0
      ? 'none'
      : `${list.slice(0, 8).map(code).join(', ')}${list.length > 8 ? `, and ${count(list.length - 8)} more` : ''}`;
  const rows = manifests.map((m) => [
    code(m.path),
    `${count(m.dependencies.length)}: ${names(m.dependencies)}`,
    `${count(m.devDependencies.length)}: ${names(m.devDependencies)}`,
  ]);
  return `What each manifest declares, run-time dependencies (installed with the product) apart from development ones (build, test and lint tools):\n\n${table(['Manifest', 'Runtime', 'Development'], rows)}`;
}

function tests({ survey }: DeliverableInput): string {
  const t = survey.tests;
  if (t.files === 0)
    return 'No test files were found: no `test/` or `tests/` folder and no `*.test.*`, `*.spec.*`, `test_*.py` or `*_test.go` files.';
  const where = bulletList(t.folders.slice(0, 10).map((f) => `${folderRef(f.path)}: ${plural(f.files, 'test file')}`));
  const runner = t.runner ? `They run with ${t.runner}.` : 'The test runner could not be told from the manifests.';
  const run = t.command ? `\n\n${fenced('sh', t.command)}` : '';
  return `${plural(t.files, 'test file')}, by top-level folder:\n\n${where}\n\n${runner}${run}`;
}

function hotspots({ survey }: DeliverableInput): string {
  if (survey.todos.length === 0) return 'No TODO, FIXME, HACK or XXX markers were found in code comments.';
  const rows = survey.todos.map((h) => [code(h.path), count(h.count), `line ${h.first.line}: ${code(h.first.text)}`]);
  return `${plural(survey.todoCount, 'marker')} in code comments; the files with the most:\n\n${table(['File', 'Markers', 'First marker'], rows)}`;
}

function largestFiles({ survey }: DeliverableInput): string {
  if (survey.largest.length === 0) return 'No source file could be measured.';
  const rows = survey.largest.map((f) => [code(f.path), count(f.lines), `${count(Math.ceil(f.bytes / 1024))} KB`]);
  return `Long files are often where the core logic, or the accumulated complexity, lives.\n\n${table(['File', 'Lines', 'Size'], rows)}`;
}

function unreadable({ survey }: DeliverableInput): string {
  const rows = survey.unreadable.slice(0, MAX_UNREADABLE_ROWS).map((u) => [code(u.path), escapeText(u.reason)]);
  const more =
    survey.unreadable.length > MAX_UNREADABLE_ROWS
      ? `\n\n${plural(survey.unreadable.length - MAX_UNREADABLE_ROWS, 'more file')} could not be read either.`
      : '';
  return `These were skipped, so the figures above leave them out.\n\n${table(['Path', 'Reason'], rows)}${more}`;
}

function about({ survey, mission }: DeliverableInput): string {
  const body = mission.body.trim() ? `\n\n${fenced('text', mission.body.trim())}` : '';
  return [
    `Written for the mission ${code(mission.subject.replace(/\s+/g, ' '))} by fed-agent, the built-in deliverable agent, from a read-only scan of ${code(survey.codebase)}.${body}`,
    "The scan skips `.git/`, `.fed/`, `federate.config.json`, the federation report, `node_modules/` and what `.gitignore` files ignore. Counts, manifests, packages and the import graph are read from the files; folder roles, entry points marked as guesses and the mission's best matches are inferred from names and text, so check them before relying on them.",
  ].join('\n\n');
}

function nextSteps({ survey, search }: DeliverableInput): string {
  const steps: string[] = [];
  for (const answer of search.answers.slice(0, 3)) {
    const best = answer.chain?.files[0] ?? answer.files[0]?.path;
    if (best)
      steps.push(
        `For “${escapeText(answer.topic.title)}”, start reading at ${code(best)}${answer.chain ? ' and follow the chain above' : ''}.`,
      );
  }
  const build = survey.manifests[0];
  if (survey.tests.command)
    steps.push(`Install the dependencies and run the tests (${code(survey.tests.command)}) to see the project work.`);
  else if (build) steps.push(`Install the dependencies declared in ${code(build.path)} and build the project.`);
  const entry = survey.entryPoints[0];
  if (entry) steps.push(`Read ${code(entry.path)}, where execution starts, and follow its imports.`);
  const hub = survey.graph.hub;
  if (hub)
    steps.push(
      `Study ${code(hub.label)}: ${plural(hub.dependents, 'other group')} ${agree(hub.dependents, 'depends', 'depend')} on it, so changes there ripple widely.`,
    );
  const todo = survey.todos[0];
  if (todo)
    steps.push(`Review the ${plural(todo.count, 'TODO/FIXME marker')} in ${code(todo.path)} with the maintainers.`);
  if (survey.tests.files === 0) steps.push('Add tests: none were found, so changes cannot be checked automatically.');
  if (survey.unreadable.length)
    steps.push(
      `Find out why ${plural(survey.unreadable.length, 'file')} could not be read (see "Files that could not be read").`,
    );
  if (steps.length < 2) steps.push('Read the README and the largest source files listed above.');
  return numberedList(steps);
}

const RENDERERS: Record<SectionId, (input: DeliverableInput) => string> = {
  findings: ({ insights }) => bulletList(insights),
  'how-to-run': ({ survey }) => howToRunSection(survey),
  'start-reading': ({ survey }) => whereToStartSection(survey),
  packages,
  'declared-dependencies': declaredDependencies,
  layout,
  'entry-points': entryPoints,
  languages,
  dependencies,
  tests,
  hotspots,
  'largest-files': largestFiles,
};

export const section = (title: string, body: string) => `## ${title}\n\n${body}`;

export function tableOfContents(analysis: AnalysedMarkdown): string {
  const sections = analysis.headings.filter((h) => h.level === 2);
  return section('Contents', bulletList(sections.map((h) => `[${escapeText(h.title)}](#${h.anchor})`)));
}

/** Does the section have something to say for this codebase? */
function applies(id: SectionId, input: DeliverableInput): boolean {
  if (id === 'findings') return input.insights.length > 0;
  // The mission's own package graph says all the overview's section would, and more.
  if (id === 'packages') return input.survey.packages.list.length > 1 && !input.outline.packageGraph;
  return true;
}

function excerptBlock(path: string, fence: string, quote: { line: number; text: string }): string {
  return `${code(`${path}:${quote.line}`)}:\n\n${fenced(fence, quote.text)}`;
}

const MAX_EXCERPT_FILES = 3;

/** A section answering one mission topic: the chain for a flow question, the ranked files, their excerpts. */
export function topicSection(answer: TopicAnswer, flow?: readonly FlowPath[] | null): string {
  const { topic, files, chain } = answer;
  const parts = [`From the mission: “${escapeText(topic.source)}”.`];
  if (flow) parts.push(flowPathsMarkdown(flow));
  if (chain) {
    const ids = new Map(chain.files.map((f, i) => [f, `c${i}`]));
    const steps = chain.steps.map((step) => {
      const how = step.importLine ? ` (line ${step.importLine.line}: ${code(step.importLine.text)})` : '';
      const call = step.callLine ? `, and calls ${code(step.callLine.name)} at line ${step.callLine.line}` : '';
      return `${code(step.from)} imports ${code(step.to)}${how}${call}.`;
    });
    parts.push(
      `How it flows: the chain of imports found through the matching files, ${plural(chain.files.length, 'file')} long.`,
      numberedList(steps),
      fenced(
        'mermaid',
        [
          'flowchart LR',
          ...chain.files.map((f) => `  ${ids.get(f)}[${label(f)}]`),
          ...chain.steps.map((s) => `  ${ids.get(s.from)} --> ${ids.get(s.to)}`),
        ].join('\n'),
      ),
    );
  } else if (topic.flow)
    parts.push(
      'The matching files do not import each other and no entry point leads to them, so no chain of calls could be traced; the files below are where to look.',
    );
  parts.push(
    `The files that match best, ranked by how well their path, the names they declare and their text match ${topic.words.length ? `${topic.words.map(code).join(', ')} (a word in any of its forms, or its usual abbreviation)` : topic.paths.map(code).join(', ')}:`,
    table(
      ['File', 'Matches by', 'Terms found', 'Score'],
      files.map((f) => [
        code(f.path),
        f.matchedBy.join(', '),
        f.terms.length ? f.terms.map(code).join(', ') : 'its path',
        String(f.score),
      ]),
    ),
  );
  for (const file of files.slice(0, MAX_EXCERPT_FILES))
    for (const quote of file.excerpts) parts.push(excerptBlock(file.path, file.fence, quote));
  return parts.join('\n\n');
}

/** The general overview's sections the outline asks for, each that has something to say. */
export function overviewSections(input: DeliverableInput): string[] {
  return input.outline.sections
    .filter((id) => applies(id, input))
    .map((id) => section(SECTION_TITLES[id], RENDERERS[id](input)));
}

/**
 * The document of `head` (title and summary) and `body` (its sections), analysed: the word count of the
 * draft decides the table of contents (after the summary), its headings make it, and the table is
 * inserted into the draft's analysis, so the document is parsed once (insertBlocks).
 */
export function withContents(head: readonly string[], body: readonly string[]): AnalysedMarkdown {
  const draft = analyseMarkdown(`${[...head, ...body].join('\n\n')}\n`);
  if (draft.wordCount <= TOC_WORD_LIMIT) return draft;
  return insertBlocks(draft, head.join('\n\n').length + 2, tableOfContents(draft));
}

export function renderDeliverable(input: DeliverableInput): AnalysedMarkdown {
  const title =
    input.outline.topics.length || input.outline.packageGraph
      ? `${input.survey.name}: ${input.mission.subject}`
      : TITLES[input.outline.kind](input.survey.name);
  const head = [`# ${escapeText(title)}`, summary(input)];
  const body = [
    ...(input.outline.packageGraph ? [section(PACKAGE_GRAPH_TITLE, packageGraphSection(input.survey))] : []),
    ...input.search.answers.map((answer, i) =>
      section(escapeText(answer.topic.title), topicSection(answer, input.flows?.[i])),
    ),
    ...overviewSections(input),
    ...(input.survey.unreadable.length ? [section('Files that could not be read', unreadable(input))] : []),
    section('About this document', about(input)),
    section('Next steps', nextSteps(input)),
  ];
  return withContents(head, body);
}
