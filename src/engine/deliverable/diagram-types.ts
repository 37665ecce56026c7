/**
 * Diagram types a Mermaid block may start with (Mermaid 11; `graph` is the older name of `flowchart`).
 * A block starting with anything else renders as an error box on GitHub, so the check names it.
 */
export const MERMAID_DIAGRAM_TYPES = [
  'flowchart',
  'graph',
  'sequenceDiagram',
  'classDiagram',
  'stateDiagram',
  'stateDiagram-v2',
  'erDiagram',
  'journey',
  'gantt',
  'pie',
  'quadrantChart',
  'requirementDiagram',
  'gitGraph',
  'C4Context',
  'C4Container',
  'C4Component',
  'C4Dynamic',
  'C4Deployment',
  'mindmap',
  'timeline',
  'zenuml',
  'sankey-beta',
  'xychart-beta',
  'block-beta',
  'packet-beta',
  'kanban',
  'architecture-beta',
  'radar-beta',
  'treemap-beta',
] as const;

const KNOWN = new Set<string>(MERMAID_DIAGRAM_TYPES);

export function isMermaidDiagramType(word: string): boolean {
  return KNOWN.has(word);
}

/**
 * The first word of the first line that declares something: blank lines, `%%` comments and directives,
 * and a leading `---` front-matter block (title, config) come before the diagram type in Mermaid.
 */
export function mermaidDeclaration(source: string): string | null {
  const lines = source.split('\n').map((l) => l.trim());
  let i = 0;
  while (i < lines.length && lines[i] === '') i++;
  if (lines[i] === '---') {
    i++;
    while (i < lines.length && lines[i] !== '---') i++;
    i++;
  }
  for (; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '' || line.startsWith('%%')) continue;
    return line.split(/\s+/)[0] ?? null;
  }
  return null;
}

/** `@startuml` → `uml`, `@startmindmap` → `mindmap`: what a PlantUML block says it draws. */
export function plantumlDeclaration(source: string): string | null {
  const first = source
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith("'"));
  return first?.startsWith('@start') ? first.slice('@start'.length).split(/\s+/)[0] || null : null;
}
