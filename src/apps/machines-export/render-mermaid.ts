import { GENERATED_NOTE, recordsLabel, transitionLabel, type MachineDescription } from './describe-machine.js';

/**
 * Mermaid `stateDiagram-v2`, which GitHub renders. State ids are restricted to word characters (a `-`
 * would read as part of an arrow), with the real name as the label. Edges are the transitions that change
 * state; events handled in place are listed inside the state, under its meaning.
 */
export function renderMermaid(machine: MachineDescription): string {
  const id = (key: string) => key.replace(/\W/g, '_');
  const lines = ['stateDiagram-v2', `  %% ${machine.id} machine, version ${machine.version}. ${GENERATED_NOTE}`];
  for (const state of machine.states) {
    if (id(state.key) !== state.key) lines.push(`  state "${text(state.key)}" as ${id(state.key)}`);
    for (const note of [state.description, recordsLabel(state)])
      if (note) lines.push(`  ${id(state.key)} : ${text(note)}`);
  }
  lines.push(`  [*] --> ${id(machine.initial)}`);
  for (const state of machine.states) {
    for (const transition of state.transitions) {
      if (transition.target !== null)
        lines.push(`  ${id(state.key)} --> ${id(transition.target)} : ${text(transitionLabel(transition))}`);
    }
    if (state.final) lines.push(`  ${id(state.key)} --> [*]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Mermaid ends a statement at `;` and splits labels at `:`; machine texts must not contain them. */
function text(value: string): string {
  if (/[;:"\n]/.test(value))
    throw new Error(`cannot put ${JSON.stringify(value)} in a Mermaid diagram: remove ; : " and line breaks`);
  return value;
}
