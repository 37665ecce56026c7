import { describe, expect, it } from 'vitest';
import { diagramSvg } from '../../../src/apps/ui/client/diagram-svg.js';
import type { DiagramLayout } from 'fed/testing';
import { vnodeHtml } from './vnode-html.js';

const layout: DiagramLayout = {
  machineId: 'demo',
  version: 1,
  initial: 'working',
  width: 300,
  height: 100,
  notes: [],
  nodes: [
    { id: 'working', label: 'working', x: 0, y: 0, width: 80, height: 36, final: false, description: 'Doing it' },
    { id: 'complete', label: 'complete', x: 200, y: 0, width: 80, height: 36, final: true, description: null },
    { id: 'failed', label: 'failed', x: 200, y: 60, width: 80, height: 36, final: true, description: null },
  ],
  edges: [
    {
      id: 'e0',
      source: 'working',
      target: 'complete',
      points: [
        { x: 80, y: 18 },
        { x: 200, y: 18 },
      ],
      label: 'DONE',
      labelX: 120,
      labelY: 4,
    },
    {
      id: 'e1',
      source: 'working',
      target: 'failed',
      points: [
        { x: 80, y: 30 },
        { x: 140, y: 30 },
        { x: 140, y: 78 },
        { x: 200, y: 78 },
      ],
      label: 'FAIL',
      labelX: null,
      labelY: null,
    },
  ],
};

describe('lifecycle diagrams as SVG', () => {
  it('draws every state and transition, the current state and its way out lit', () => {
    const svg = vnodeHtml(diagramSvg(layout, 'working'));
    expect(svg).toContain('viewBox="-4 -4 308 108" width="308" height="108"');
    expect(svg).toContain('aria-label="demo lifecycle, now in working"');
    expect(svg).toContain('<g class="node initial current" data-state="working">');
    expect(svg).toContain('<title>working: Doing it</title>');
    expect(svg).toContain('<g class="node final" data-state="complete">');
    expect(svg).toContain('<g class="node final failed" data-state="failed">');
    expect(svg).toContain(
      '<g class="edge from-current"><path d="M80,18 L200,18" marker-end="url(#fed-diagram-arrow)"></path><text x="120" y="14">DONE</text></g>',
    );
    // A label ELK did not place is left out rather than drawn at the origin.
    expect(svg).toContain('<path d="M80,30 L140,30 L140,78 L200,78" marker-end="url(#fed-diagram-arrow)"></path></g>');
  });

  it('lights the failed state as failed and current, and nothing when the state is unknown', () => {
    expect(vnodeHtml(diagramSvg(layout, 'failed'))).toContain(
      '<g class="node final failed current" data-state="failed">',
    );
    expect(vnodeHtml(diagramSvg(layout, null))).not.toContain('current');
  });

  it('uses no style attribute (the CSP allows none)', () => {
    expect(vnodeHtml(diagramSvg(layout, 'working'))).not.toContain('style=');
  });
});
