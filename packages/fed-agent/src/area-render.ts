import type { AnalysedMarkdown } from 'fed/agent';
import { outsideProduct, type Survey } from 'fed/survey';
import type { AreaFacts } from './area-facts.js';
import { areaSections, folderOf, shortName } from './area-sections.js';
import { linkRef } from './area-links.js';
import { agree, code, count, escapeText, folderRef, numberedList, plural } from './markdown-text.js';
import { overviewSections, section, topicSection, withContents, type DeliverableInput } from './render-markdown.js';

/**
 * The document of a team whose mission names an area (a package or a folder, as `fed plan` gives each
 * team): about that area only — its purpose, public API, internal structure, dependencies in and out
 * with a diagram, entry points, tests and how it is built — with the whole repository in one short
 * paragraph that links the federation report, where the other areas' documents are. Two teams planned
 * on the same repository write documents that share almost nothing. Pure: everything is in its input.
 */
export interface AreaDocumentInput extends DeliverableInput {
  areas: AreaFacts[];
  /** The federation report, relative to the document's folder. */
  federationReport: string;
  /** A fix attempt: add the general overview of the repository after the areas. */
  repositoryOverview: boolean;
}

const MAX_NEIGHBOURS = 8;

function whatItIs(facts: AreaFacts, survey: Survey): string {
  const { area } = facts;
  const kind = area.package ? `the package ${code(area.package.name)}` : `the folder ${folderRef(area.path)}`;
  const languages = facts.code.languages.length ? ` of ${facts.code.languages.join(' and ')}` : '';
  return `${area.package ? `${folderRef(area.path)} holds ${kind}` : `This is ${kind}`} of ${code(survey.name)}: ${plural(facts.code.files, 'source file')} and ${count(facts.code.lines)} lines${languages}.`;
}

function summary(input: AreaDocumentInput): string {
  const { areas, survey } = input;
  const exported = areas.reduce((n, a) => n + a.api.reduce((m, f) => m + f.entries.length, 0), 0);
  const outs = areas.reduce((n, a) => n + a.links.out.length, 0);
  const ins = areas.reduce((n, a) => n + a.links.in.length, 0);
  const first =
    areas.length === 1
      ? whatItIs(areas[0]!, survey)
      : `This document is about ${areas.map((a) => folderRef(a.area.path)).join(', ')} of ${code(survey.name)}: ${plural(
          areas.reduce((n, a) => n + a.code.files, 0),
          'source file',
        )} in ${plural(areas.length, 'area')}.`;
  const second = `${areas.length === 1 ? 'It exports' : 'They export'} ${plural(exported, 'name')}, ${agree(areas.length, 'imports', 'import')} from ${plural(outs, 'other area')} and ${agree(areas.length, 'is', 'are')} imported by ${plural(ins, 'other area')}.`;
  const third =
    'It covers purpose, public API, internal structure, dependencies, entry points, tests and build, and leaves the rest of the repository to the federation report.';
  return `${first} ${second} ${third}`;
}

/** The whole repository in one paragraph: what the area is part of, its siblings, and the federation report. */
function whereItFits(input: AreaDocumentInput): string {
  const { survey, areas } = input;
  const paths = new Set(areas.map((a) => a.area.path));
  const packaged = areas.every((a) => a.area.package);
  const depth = areas[0]!.area.path.split('/').length;
  const siblings = packaged
    ? survey.packages.list.map((p) => p.path).filter((p) => !paths.has(p))
    : [
        ...new Set(
          survey.files
            .filter((f) => f.language?.kind === 'code' && !f.test && !outsideProduct(f.path))
            .map((f) => f.path.split('/'))
            .filter((parts) => parts.length > depth)
            .map((parts) => parts.slice(0, depth).join('/')),
        ),
      ]
        .filter((p) => !paths.has(p))
        .sort();
  const shown = siblings.slice(0, MAX_NEIGHBOURS).map((p) => folderRef(p));
  const rest = siblings.length > MAX_NEIGHBOURS ? ` and ${plural(siblings.length - MAX_NEIGHBOURS, 'more')}` : '';
  const others = siblings.length
    ? ` Beside ${agree(areas.length, 'it', 'them')}: ${shown.join(', ')}${rest}.`
    : ' Nothing else in the repository holds code.';
  const description = survey.description ? ` (${escapeText(survey.description)})` : '';
  return `${areas.map((a) => folderRef(a.area.path)).join(', ')} ${agree(areas.length, 'is a part', 'are parts')} of ${code(survey.name)}${description}, ${plural(survey.totals.files, 'file')} in all.${others} The [federation report](${input.federationReport}) describes the whole repository and links the documents on the other areas.`;
}

function about(input: AreaDocumentInput): string {
  return `Written for the mission ${code(input.mission.subject.replace(/\s+/g, ' '))} by fed-agent, the built-in deliverable agent, from a read-only scan of ${code(input.survey.codebase)}, about ${input.areas.map((a) => folderRef(a.area.path)).join(', ')} alone. Exports, signatures and doc comments are quoted from the files and the links come from their imports; folder roles are guessed from names, so check those.`;
}

function nextSteps(input: AreaDocumentInput): string {
  const steps: string[] = [];
  for (const facts of input.areas) {
    const start = facts.entryPoints[0]?.path ?? facts.api[0]?.path;
    if (start) steps.push(`Start reading ${folderRef(facts.area.path)} at ${code(start)}.`);
    const test = facts.build.commands.find((c) => /\btest\b/.test(c));
    if (test) steps.push(`Run its tests with ${code(test)} before changing it.`);
    const out = facts.links.out.slice(0, 3);
    if (out.length) steps.push(`Read the documents on what it builds on: ${out.map(linkRef).join(', ')}.`);
    const into = facts.links.in.slice(0, 3);
    if (into.length)
      steps.push(
        `Check ${into.map(linkRef).join(', ')} when changing its exports: ${agree(into.length, 'it imports', 'they import')} them.`,
      );
  }
  steps.push(
    `Read the [federation report](${input.federationReport}) for the areas around ${input.areas.map((a) => folderRef(a.area.path)).join(', ')}.`,
  );
  return numberedList(steps);
}

export function renderAreaDocument(input: AreaDocumentInput): AnalysedMarkdown {
  const { areas, survey } = input;
  const title = `${survey.name}: ${areas.map((a) => (a.area.package ? `${a.area.package.name} (${folderOf(a.area)})` : folderOf(a.area))).join(', ')}`;
  const body = [
    section(
      `Where ${areas.map((a) => code(shortName(a.area))).join(', ')} ${agree(areas.length, 'fits', 'fit')}`,
      whereItFits(input),
    ),
    ...input.search.answers.flatMap((answer, i) =>
      areas.some((a) => a.area.topic === answer.topic)
        ? []
        : [section(escapeText(answer.topic.title), topicSection(answer, input.flows?.[i]))],
    ),
    ...(areas.length === 1
      ? areaSections(areas[0]!, survey, 2)
      : areas.map((facts) => section(code(folderOf(facts.area)), areaSections(facts, survey, 3).join('\n\n')))),
    ...(input.repositoryOverview ? overviewSections(input) : []),
    section(`About this document on ${areas.map((a) => code(shortName(a.area))).join(', ')}`, about(input)),
    section(`Next steps in ${areas.map((a) => code(shortName(a.area))).join(', ')}`, nextSteps(input)),
  ];
  const head = [`# ${escapeText(title)}`, summary(input)];
  return withContents(head, body);
}
