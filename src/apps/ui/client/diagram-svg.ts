import { h } from 'preact';
import type { DiagramLayout } from '../api-types.js';

/**
 * A lifecycle diagram (laid out at build time, see diagram-types.ts) as SVG, the team's current state lit
 * (class `current`) with the transitions out of it; final states and `failed` get their own classes.
 * Every look is in app.css: no style attribute (the CSP forbids them).
 */
/** The arrowhead's id: unlike a rendered heading's (`#arrow`), never taken by anything else on the page. */
const ARROW = 'fed-diagram-arrow';

export function diagramSvg(layout: DiagramLayout, current: string | null) {
  const margin = 4;
  const nodeClass = (id: string, final: boolean) =>
    [
      'node',
      final && 'final',
      id === 'failed' && 'failed',
      id === layout.initial && 'initial',
      id === current && 'current',
    ]
      .filter(Boolean)
      .join(' ');
  return h(
    'svg',
    {
      class: 'diagram',
      viewBox: `${-margin} ${-margin} ${layout.width + 2 * margin} ${layout.height + 2 * margin}`,
      // Its natural size, shrunk (never grown) to the panel by the stylesheet.
      width: layout.width + 2 * margin,
      height: layout.height + 2 * margin,
      role: 'img',
      'aria-label': `${layout.machineId} lifecycle${current ? `, now in ${current}` : ''}`,
      'data-machine': layout.machineId,
    },
    h(
      'defs',
      null,
      h(
        'marker',
        { id: ARROW, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
        h('path', { class: 'arrow', d: 'M0,0 L10,5 L0,10 z' }),
      ),
    ),
    h(
      'g',
      { class: 'edges' },
      layout.edges.map((edge) =>
        h(
          'g',
          { key: edge.id, class: edge.source === current ? 'edge from-current' : 'edge' },
          h('path', {
            d: edge.points.map((point, index) => `${index ? 'L' : 'M'}${point.x},${point.y}`).join(' '),
            'marker-end': `url(#${ARROW})`,
          }),
          edge.label && edge.labelX !== null && edge.labelY !== null
            ? h('text', { x: edge.labelX, y: edge.labelY + 10 }, edge.label)
            : null,
        ),
      ),
    ),
    h(
      'g',
      { class: 'nodes' },
      layout.nodes.map((node) =>
        h(
          'g',
          { key: node.id, class: nodeClass(node.id, node.final), 'data-state': node.id },
          h('title', null, node.description ? `${node.label}: ${node.description}` : node.label),
          h('rect', { x: node.x, y: node.y, width: node.width, height: node.height, rx: 6, ry: 6 }),
          h('text', { x: node.x + node.width / 2, y: node.y + node.height / 2 }, node.label),
        ),
      ),
    ),
  );
}
