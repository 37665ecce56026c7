import type { FlowPath, FlowStep } from './flow-trace.js';
import { code, fenced, numberedList, plural } from './markdown-text.js';

/**
 * A traced flow (flow-trace.ts) for a reader: numbered steps — the function, `file:line` and the line
 * itself, and where it calls the next — then a Mermaid sequence diagram with one participant per file.
 * The same steps as plain text for a consultant's answer.
 */

/** Mermaid reads `;` as a statement end and `#` as an entity; neither may appear in a label. */
const mermaidText = (text: string) => text.replace(/[;#:]/g, ' ').trim();

function stepLine(step: FlowStep, next: FlowStep | undefined, format: (text: string) => string): string {
  const calls = step.call && next ? `; calls ${format(next.function)} at line ${step.call.line}` : '';
  return `${format(step.function)} at ${format(`${step.file}:${step.line}`)}: ${format(step.excerpt)}${calls}`;
}

/** One participant per file; each path's calls in turn, a call shared with an earlier path drawn once. */
export function sequenceDiagram(...paths: (readonly FlowStep[])[]): string {
  const files = [...new Set(paths.flat().map((s) => s.file))];
  const id = (file: string) => `p${files.indexOf(file)}`;
  const arrows = paths.flatMap((steps) =>
    steps.slice(1).map((step, i) => `  ${id(steps[i]!.file)}->>${id(step.file)}: ${mermaidText(step.function)}()`),
  );
  const lines = [
    'sequenceDiagram',
    ...files.map((file) => `  participant ${id(file)} as ${mermaidText(file)}`),
    ...new Set(arrows),
  ];
  return fenced('mermaid', lines.join('\n'));
}

/** The Markdown of a traced flow: a sentence, the numbered steps, the sequence diagram. */
export function flowMarkdown(steps: readonly FlowStep[]): string {
  return [
    `How it works, call by call: ${plural(steps.length, 'function')} from ${code(steps[0]!.function)} in ${code(steps[0]!.file)}, each calling the next.`,
    numberedList(steps.map((step, i) => stepLine(step, steps[i + 1], code))),
    sequenceDiagram(steps),
  ].join('\n\n');
}

const WHEN: Record<NonNullable<FlowPath['when']>['kind'], string> = {
  default: 'by default',
  always: 'on every path',
  optional: 'only',
};

/** Several paths (flow-trace.ts FlowPath): each as numbered steps under how it is taken, then one diagram. */
export function flowPathsMarkdown(paths: readonly FlowPath[]): string {
  if (paths.length === 1) return flowMarkdown(paths[0]!.steps);
  const fork = paths[0]!.steps.findIndex((step, i) =>
    paths.some((p) => p.steps[i + 1]?.function !== paths[0]!.steps[i + 1]?.function),
  );
  const at = paths[0]!.steps[fork]!;
  const parts = [
    `How it works, call by call: ${code(at.function)} (${code(`${at.file}:${at.line}`)}) goes ${plural(paths.length, 'way')}, each followed to where it ends; the default one first.`,
  ];
  paths.forEach((path, n) => {
    const next = path.steps[fork + 1]!;
    const when = path.when!;
    const how =
      when.kind === 'always'
        ? `${WHEN.always}`
        : `${WHEN[when.kind]}${when.condition ? ` when ${code(when.condition)}` : ''}`;
    parts.push(
      `Path ${n + 1}, ${how}: ${code(next.function)}, called at line ${path.steps[fork]!.call?.line ?? at.line}.`,
      // The way to the fork is shown once, with the first path.
      numberedList(path.steps.slice(n === 0 ? 0 : fork).map((step, i, shown) => stepLine(step, shown[i + 1], code))),
    );
  });
  parts.push(sequenceDiagram(...paths.map((p) => p.steps)));
  return parts.join('\n\n');
}

/** The same steps as plain text (a signal body), numbered. */
export function flowText(steps: readonly FlowStep[]): string {
  return `How it works, call by call:\n${steps.map((step, i) => `${i + 1}. ${stepLine(step, steps[i + 1], (t) => t)}`).join('\n')}`;
}
