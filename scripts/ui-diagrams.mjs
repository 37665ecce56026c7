/**
 * The dashboard's lifecycle diagrams, laid out at build time (elkjs stays a build-time dependency): each
 * machine of the catalog, read off its definition by the same code as `fed machines export`, becomes
 * `<outDir>/<machineId>.json` — nodes with their box and label, edges with their route and event label —
 * which the page draws as SVG (src/apps/ui/client/views/lifecycle-diagram.ts). Runs after tsc: it reads
 * the compiled machine catalog in dist/src.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ELK from 'elkjs/lib/elk.bundled.js';

/** The page's diagram font is 12px system-ui; a character is about this wide on average. */
const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;
const NODE_PADDING = { x: 14, y: 10 };

const labelSize = (text, size = 1) => ({
  width: Math.ceil(text.length * CHAR_WIDTH * size),
  height: Math.ceil(LINE_HEIGHT * size),
});

/** A machine description (describeMachine) as an ELK graph: one node per state, one edge per transition. */
export function machineGraph(machine) {
  const children = machine.states.map((state) => {
    const size = labelSize(state.key);
    return {
      id: state.key,
      width: size.width + 2 * NODE_PADDING.x,
      height: size.height + 2 * NODE_PADDING.y,
      labels: [{ text: state.key, ...size }],
    };
  });
  // Two transitions between the same states (RESUME under different guards never do, but an event and its
  // guarded twin may) share one edge with both labels: the picture says which events move, not how often.
  const byRoute = new Map();
  for (const state of machine.states)
    for (const transition of state.transitions) {
      if (transition.target === null) continue;
      const key = `${state.key}\u0000${transition.target}`;
      const events = byRoute.get(key) ?? { source: state.key, target: transition.target, events: [] };
      if (!events.events.includes(transition.event)) events.events.push(transition.event);
      byRoute.set(key, events);
    }
  const edges = [...byRoute.values()].map(({ source, target, events }, index) => {
    const text = events.join(', ');
    return { id: `e${index}`, sources: [source], targets: [target], labels: [{ text, ...labelSize(text, 0.85) }] };
  });
  return {
    id: machine.id,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.spacing.nodeNodeBetweenLayers': '60',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.spacing.edgeEdge': '10',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      // States in the order the machine declares them (its happy path first), failures and pauses after.
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
    },
    children,
    edges,
  };
}

/** An ELK layout as the page's diagram JSON (see DiagramLayout in src/apps/ui/client/diagram-types.ts). */
export function diagramOf(machine, layout) {
  const states = new Map(machine.states.map((state) => [state.key, state]));
  return {
    machineId: machine.id,
    version: machine.version,
    initial: machine.initial,
    width: Math.ceil(layout.width),
    height: Math.ceil(layout.height),
    nodes: layout.children.map((node) => ({
      id: node.id,
      label: node.id,
      x: node.x,
      y: node.y,
      width: node.width,
      height: node.height,
      final: states.get(node.id)?.final ?? false,
      description: states.get(node.id)?.description ?? null,
    })),
    edges: layout.edges.map((edge) => {
      const section = edge.sections?.[0];
      const points = section ? [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] : [];
      const label = edge.labels?.[0];
      return {
        id: edge.id,
        source: edge.sources[0],
        target: edge.targets[0],
        points: points.map(({ x, y }) => ({ x, y })),
        label: label?.text ?? '',
        labelX: label?.x ?? null,
        labelY: label?.y ?? null,
      };
    }),
  };
}

/** Lay out every machine of the compiled catalog under `distDir`, one JSON file each in `outDir`. */
export async function writeDiagrams(distDir, outDir) {
  const importDist = (path) => import(pathToFileURL(resolve(distDir, path)).href);
  const { machineCatalog } = await importDist('src/engine/archetypes/catalog.js');
  const { describeMachine } = await importDist('src/apps/machines-export/describe-machine.js');
  const elk = new ELK();
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const entry of machineCatalog) {
    const machine = describeMachine(entry);
    const layout = await elk.layout(machineGraph(machine));
    const file = join(outDir, `${machine.id}.json`);
    writeFileSync(file, `${JSON.stringify(diagramOf(machine, layout))}\n`);
    written.push(file);
  }
  return written;
}
