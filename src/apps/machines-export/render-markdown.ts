import { GENERATED_NOTE, type MachineDescription } from './describe-machine.js';
import { renderMermaid } from './render-mermaid.js';

/**
 * A Markdown page per machine: GitHub renders the Mermaid fence as a diagram; the table under it says
 * what each state means, in text that is searchable and readable where Mermaid is not rendered.
 */
export function renderMarkdown(machine: MachineDescription): string {
  return [
    `# \`${machine.id}\` machine (version ${machine.version})`,
    '',
    `<!-- ${GENERATED_NOTE} -->`,
    '',
    '```mermaid',
    renderMermaid(machine).trimEnd(),
    '```',
    '',
    '| State | Meaning |',
    '|---|---|',
    ...machine.states.map(
      (s) =>
        `| \`${s.key}\`${s.final ? ' (final)' : ''}${s.key === machine.initial ? ' (initial)' : ''} | ${cell(s.description ?? '')} |`,
    ),
    '',
  ].join('\n');
}

function cell(value: string): string {
  return value.replace(/\|/g, '\\|');
}
