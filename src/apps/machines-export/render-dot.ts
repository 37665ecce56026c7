import { GENERATED_NOTE, recordsLabel, transitionLabel, type MachineDescription } from './describe-machine.js';

/** Graphviz DOT: states as rounded boxes (final ones doubled), the start as a point, transitions as labelled edges. */
export function renderDot(machine: MachineDescription): string {
  const lines = [
    `digraph ${quote(machine.id)} {`,
    `  // ${machine.id} machine, version ${machine.version}. ${GENERATED_NOTE}`,
    '  rankdir=LR;',
    '  node [shape=box, style=rounded, fontname="Helvetica"];',
    '  edge [fontname="Helvetica", fontsize=10];',
    '  "[*]" [shape=point, width=0.2];',
  ];
  for (const state of machine.states) {
    const label = [state.key, recordsLabel(state)].filter(Boolean).join('\n');
    lines.push(`  ${quote(state.key)} [label=${quote(label)}${state.final ? ', peripheries=2' : ''}];`);
  }
  lines.push(`  "[*]" -> ${quote(machine.initial)};`);
  for (const state of machine.states) {
    for (const transition of state.transitions) {
      if (transition.target !== null)
        lines.push(
          `  ${quote(state.key)} -> ${quote(transition.target)} [label=${quote(transitionLabel(transition))}];`,
        );
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
