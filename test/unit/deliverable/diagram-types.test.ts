import { describe, expect, it } from 'vitest';
import {
  isMermaidDiagramType,
  mermaidDeclaration,
  plantumlDeclaration,
} from '../../../src/engine/deliverable/diagram-types.js';

/** What a diagram block says it draws: read as Mermaid and PlantUML read it. */
describe('mermaidDeclaration: the first word of the first line that declares something', () => {
  it.each([
    ['flowchart LR\n  a --> b', 'flowchart'],
    ['\n\n   sequenceDiagram\n', 'sequenceDiagram'],
    ['  graph\tTD', 'graph'],
    ['%% a comment\n%%{init: {"theme": "dark"}}%%\n\nclassDiagram', 'classDiagram'],
    ['\n---\ntitle: Flow\nconfig:\n  theme: dark\n---\nstateDiagram-v2\n[*] --> a', 'stateDiagram-v2'],
    ['---\ntitle: x\n---\n\n%% c\nerDiagram', 'erDiagram'],
  ])('%j → %s', (source, declared) => {
    expect(mermaidDeclaration(source)).toBe(declared);
  });

  it.each([
    [''],
    ['\n  \n'],
    ['%% only a comment'],
    ['---\ntitle: never closed\nflowchart'],
    ['---\ntitle: x\n---\n\n'],
  ])('%j declares nothing', (source) => {
    expect(mermaidDeclaration(source)).toBeNull();
  });

  it('a --- that does not open the block is the declaration, not front matter', () => {
    expect(mermaidDeclaration('flowchart\n---\nx')).toBe('flowchart');
    expect(mermaidDeclaration('---x\nflowchart')).toBe('---x');
  });

  it('knows the types Mermaid draws, and no other word', () => {
    for (const type of ['flowchart', 'graph', 'sequenceDiagram', 'stateDiagram-v2', 'erDiagram', 'gantt', 'pie'])
      expect(isMermaidDiagramType(type)).toBe(true);
    for (const word of ['flowchat', 'Flowchart', '', 'title:']) expect(isMermaidDiagramType(word)).toBe(false);
  });
});

describe('plantumlDeclaration: what @start… names', () => {
  it.each([
    ['@startuml\nA -> B\n@enduml', 'uml'],
    ["' a comment\n\n  @startmindmap title\n* root", 'mindmap'],
    ['@start', null],
    ['@start  uml', null],
    ['A -> B\n@startuml', null],
    ["' only comments\n'", null],
    ['', null],
  ])('%j → %s', (source, declared) => {
    expect(plantumlDeclaration(source)).toBe(declared);
  });
});
