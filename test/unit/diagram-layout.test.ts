// CommonJS whose exports are the class, also as `default` (which is what its typings describe).
import elkjs from 'elkjs/lib/elk.bundled.js';
import { describe, expect, test } from 'vitest';
import { codingEntry, describeMachine, machineCatalog } from 'fed/testing';
import { commonTransitions, diagramLayout, layoutGraph } from '../../src/apps/machines-export/diagram-layout.js';
import { teamStatusEntry } from 'fed';

describe("the dashboard's lifecycle diagrams (laid out at build time)", () => {
  test('PAUSE, FAIL and the way back from paused are said once, not drawn from every state', () => {
    const coding = describeMachine(codingEntry);
    const { hidden, notes } = commonTransitions(coding);
    expect(notes).toEqual([
      'FAIL from every state → failed',
      'PAUSE from every state → paused',
      'RESUME: paused → the state it was entered from',
    ]);
    const graph = layoutGraph(coding, hidden);
    const drawn = graph.edges.map((edge) => `${edge.sources[0]} → ${edge.targets[0]}: ${edge.labels[0]!.text}`);
    expect(drawn).toContain('preparing → implementing: PLAN_READY');
    expect(drawn).toContain('pr-review → implementing: CHANGES_REQUESTED');
    expect(drawn.filter((edge) => /PAUSE|FAIL|RESUME/.test(edge))).toEqual([]);
    // Every state is drawn, even those only the notes lead to.
    expect(graph.children.map((node) => node.id)).toEqual(coding.states.map((state) => state.key));
  });

  test('a small machine keeps every transition as an arrow', () => {
    const status = describeMachine(teamStatusEntry);
    const { hidden, notes } = commonTransitions(status);
    expect([hidden.size, notes]).toEqual([0, []]);
    expect(layoutGraph(status, hidden).edges.map((edge) => edge.labels[0]!.text)).toEqual([
      'PAUSE',
      'ARCHIVE',
      'RESUME',
      'ARCHIVE',
    ]);
  });

  test('every machine lays out: each state a box inside the picture, each arrow from box to box', async () => {
    const elk = new elkjs.default();
    for (const entry of machineCatalog) {
      const machine = describeMachine(entry);
      const { hidden, notes } = commonTransitions(machine);
      const diagram = diagramLayout(machine, await elk.layout(layoutGraph(machine, hidden)), notes);
      expect(diagram.nodes.map((node) => node.id)).toEqual(machine.states.map((state) => state.key));
      const boxes = new Map(diagram.nodes.map((node) => [node.id, node]));
      for (const node of diagram.nodes) {
        expect(node.x >= 0 && node.y >= 0, `${machine.id}.${node.id}`).toBe(true);
        expect(node.x + node.width <= diagram.width && node.y + node.height <= diagram.height).toBe(true);
      }
      const touches = (point: { x: number; y: number }, id: string) => {
        const box = boxes.get(id)!;
        const near = (value: number, low: number, high: number) => value >= low - 1 && value <= high + 1;
        return near(point.x, box.x, box.x + box.width) && near(point.y, box.y, box.y + box.height);
      };
      for (const edge of diagram.edges) {
        expect(edge.points.length, `${machine.id} ${edge.label}`).toBeGreaterThanOrEqual(2);
        expect(touches(edge.points[0]!, edge.source), `${machine.id} ${edge.label} starts at ${edge.source}`).toBe(
          true,
        );
        expect(touches(edge.points.at(-1)!, edge.target), `${machine.id} ${edge.label} ends at ${edge.target}`).toBe(
          true,
        );
        expect(edge.labelX).not.toBeNull();
      }
    }
  });
});
