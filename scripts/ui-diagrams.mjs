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

/** State names are drawn at 12px, event names at 10px in capitals: about this wide a character, either way. */
const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;
const NODE_PADDING = { x: 14, y: 10 };

const labelSize = (text, size = 1) => ({
  width: Math.ceil(text.length * CHAR_WIDTH * size),
  height: Math.ceil(LINE_HEIGHT * size),
});

/**
 * The transitions every state has (PAUSE → paused, FAIL → failed, RETIRE → retired), and the way back
 * from such a state to each state that leads into it (RESUME from paused): drawn as arrows they cross the
 * whole picture and hide the lifecycle's path, so the diagram says them once, as notes. A transition is
 * "from every state" when every non-final state but its target has it, and there are at least MIN_COMMON.
 */
const MIN_COMMON = 3;

export function commonTransitions(machine) {
  const nonFinal = machine.states.filter((state) => !state.final).map((state) => state.key);
  const sourcesOf = new Map();
  for (const state of machine.states)
    for (const transition of state.transitions) {
      if (transition.target === null) continue;
      const key = `${transition.event}\u0000${transition.target}`;
      sourcesOf.set(key, new Set([...(sourcesOf.get(key) ?? []), state.key]));
    }
  const hidden = new Set();
  const notes = [];
  for (const [key, sources] of sourcesOf) {
    const [event, target] = key.split('\u0000');
    const everyOther = nonFinal.filter((state) => state !== target);
    if (everyOther.length < MIN_COMMON || !everyOther.every((state) => sources.has(state))) continue;
    for (const source of sources) hidden.add(`${source}\u0000${event}\u0000${target}`);
    notes.push(`${event} from every state → ${target}`);
    // The way back: one event from the target to each state it is entered from.
    const back = machine.states.find((state) => state.key === target)?.transitions ?? [];
    for (const returnEvent of new Set(back.map((transition) => transition.event))) {
      const returns = back.filter((t) => t.event === returnEvent && t.target !== null && t.target !== target);
      if (returns.length >= MIN_COMMON && returns.every((t) => sources.has(t.target))) {
        for (const t of returns) hidden.add(`${target}\u0000${returnEvent}\u0000${t.target}`);
        notes.push(`${returnEvent}: ${target} → the state it was entered from`);
      }
    }
  }
  return { hidden, notes };
}

/** A machine description (describeMachine) as an ELK graph: one node per state, one edge per transition. */
export function machineGraph(machine, hidden = new Set()) {
  const children = machine.states.map((state) => {
    const size = labelSize(state.key);
    return {
      id: state.key,
      width: size.width + 2 * NODE_PADDING.x,
      height: size.height + 2 * NODE_PADDING.y,
      labels: [{ text: state.key, ...size }],
    };
  });
  // Transitions between the same two states share one edge with every event as its label: the picture
  // says which events move, not under which guard.
  const byRoute = new Map();
  for (const state of machine.states)
    for (const transition of state.transitions) {
      if (transition.target === null || hidden.has(`${state.key}\u0000${transition.event}\u0000${transition.target}`))
        continue;
      const key = `${state.key}\u0000${transition.target}`;
      const route = byRoute.get(key) ?? { source: state.key, target: transition.target, events: [] };
      if (!route.events.includes(transition.event)) route.events.push(transition.event);
      byRoute.set(key, route);
    }
  const edges = [...byRoute.values()].map(({ source, target, events }, index) => {
    const text = events.join(', ');
    return { id: `e${index}`, sources: [source], targets: [target], labels: [{ text, ...labelSize(text) }] };
  });
  return {
    id: machine.id,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.spacing.nodeNodeBetweenLayers': '40',
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
export function diagramOf(machine, layout, notes = []) {
  const states = new Map(machine.states.map((state) => [state.key, state]));
  return {
    machineId: machine.id,
    version: machine.version,
    initial: machine.initial,
    width: Math.ceil(layout.width),
    height: Math.ceil(layout.height),
    notes,
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
      // A wrapped edge comes in several sections, one after the other.
      const points = (edge.sections ?? []).flatMap((section) => [
        section.startPoint,
        ...(section.bendPoints ?? []),
        section.endPoint,
      ]);
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
    const { hidden, notes } = commonTransitions(machine);
    const layout = await elk.layout(machineGraph(machine, hidden));
    const file = join(outDir, `${machine.id}.json`);
    writeFileSync(file, `${JSON.stringify(diagramOf(machine, layout, notes))}\n`);
    written.push(file);
  }
  return written;
}
