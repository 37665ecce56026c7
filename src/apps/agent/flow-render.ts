import type { FlowStep } from './flow-trace.js';
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

export function sequenceDiagram(steps: readonly FlowStep[]): string {
  const files = [...new Set(steps.map((s) => s.file))];
  const id = (file: string) => `p${files.indexOf(file)}`;
  const lines = [
    'sequenceDiagram',
    ...files.map((file) => `  participant ${id(file)} as ${mermaidText(file)}`),
    ...steps.slice(1).map((step, i) => `  ${id(steps[i]!.file)}->>${id(step.file)}: ${mermaidText(step.function)}()`),
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

/** The same steps as plain text (a signal body), numbered. */
export function flowText(steps: readonly FlowStep[]): string {
  return `How it works, call by call:\n${steps.map((step, i) => `${i + 1}. ${stepLine(step, steps[i + 1], (t) => t)}`).join('\n')}`;
}
