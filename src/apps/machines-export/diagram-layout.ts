import type { DiagramLayout } from '../ui/api-types.js';
import type { MachineDescription } from './describe-machine.js';

/**
 * A machine description as a graph for a layered layout (elkjs's JSON graph), and the laid-out graph as
 * the dashboard's diagram (`DiagramLayout`). The layout itself runs at build time (scripts/ui-diagrams.mjs),
 * so elkjs is never a run-time dependency; this module only speaks its JSON.
 */

/** State names are drawn at 12px, event names at 10px in capitals: about this wide a character, either way. */
const CHAR_WIDTH = 7;
const LINE_HEIGHT = 16;
const NODE_PADDING = { x: 14, y: 10 };

/**
 * The transitions every state has count as "from every state" when every non-final state but their target
 * has them, and there are at least this many.
 */
const MIN_COMMON = 3;

interface Size {
  width: number;
  height: number;
}

/** The part of elkjs's graph JSON given to the layout. */
export interface LayoutGraph {
  id: string;
  layoutOptions: Record<string, string>;
  children: (Size & { id: string; labels: (Size & { text: string })[] })[];
  edges: { id: string; sources: string[]; targets: string[]; labels: (Size & { text: string })[] }[];
}

/** The part of elkjs's answer read back: positions, and each edge's route in sections. */
export interface LaidOutGraph {
  width?: number;
  height?: number;
  children?: { id: string; x?: number; y?: number; width?: number; height?: number }[];
  edges?: {
    id: string;
    sources: string[];
    targets: string[];
    sections?: { startPoint: Point; endPoint: Point; bendPoints?: Point[] }[];
    labels?: { text?: string; x?: number; y?: number }[];
  }[];
}

interface Point {
  x: number;
  y: number;
}

const labelSize = (text: string): Size => ({ width: Math.ceil(text.length * CHAR_WIDTH), height: LINE_HEIGHT });

const transitionKey = (source: string, event: string, target: string) => `${source}\u0000${event}\u0000${target}`;

/**
 * The transitions every state has (PAUSE → paused, FAIL → failed, RETIRE → retired), and the way back
 * from such a state to each state that leads into it (RESUME from paused): drawn as arrows they cross the
 * whole picture and hide the lifecycle's path, so the diagram says them once, as notes.
 */
export function commonTransitions(machine: MachineDescription): { hidden: Set<string>; notes: string[] } {
  const nonFinal = machine.states.filter((state) => !state.final).map((state) => state.key);
  const sourcesOf = new Map<string, { event: string; target: string; sources: Set<string> }>();
  for (const state of machine.states)
    for (const { event, target } of state.transitions) {
      if (target === null) continue;
      const key = `${event}\u0000${target}`;
      const entry = sourcesOf.get(key) ?? { event, target, sources: new Set<string>() };
      entry.sources.add(state.key);
      sourcesOf.set(key, entry);
    }
  const hidden = new Set<string>();
  const notes: string[] = [];
  for (const { event, target, sources } of sourcesOf.values()) {
    const everyOther = nonFinal.filter((state) => state !== target);
    if (everyOther.length < MIN_COMMON || !everyOther.every((state) => sources.has(state))) continue;
    for (const source of sources) hidden.add(transitionKey(source, event, target));
    notes.push(`${event} from every state → ${target}`);
    // The way back: one event from the target to each state it is entered from.
    const back = machine.states.find((state) => state.key === target)?.transitions ?? [];
    for (const returnEvent of new Set(back.map((transition) => transition.event))) {
      const returns = back.filter((t) => t.event === returnEvent && t.target !== null && t.target !== target);
      if (returns.length >= MIN_COMMON && returns.every((t) => sources.has(t.target!))) {
        for (const t of returns) hidden.add(transitionKey(target, returnEvent, t.target!));
        notes.push(`${returnEvent}: ${target} → the state it was entered from`);
      }
    }
  }
  return { hidden, notes };
}

/** The graph to lay out: one node per state, one edge per pair of states a transition joins (minus `hidden`). */
export function layoutGraph(machine: MachineDescription, hidden: ReadonlySet<string>): LayoutGraph {
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
  const routes = new Map<string, { source: string; target: string; events: string[] }>();
  for (const state of machine.states)
    for (const { event, target } of state.transitions) {
      if (target === null || hidden.has(transitionKey(state.key, event, target))) continue;
      const key = `${state.key}\u0000${target}`;
      const route = routes.get(key) ?? { source: state.key, target, events: [] };
      if (!route.events.includes(event)) route.events.push(event);
      routes.set(key, route);
    }
  const edges = [...routes.values()].map(({ source, target, events }, index) => {
    const text = events.join(', ');
    return { id: `e${index}`, sources: [source], targets: [target], labels: [{ text, ...labelSize(text) }] };
  });
  return {
    id: machine.id,
    layoutOptions: {
      'elk.algorithm': 'layered',
      // Top-down keeps a long lifecycle readable at its natural size (left-to-right, it was a thin strip).
      'elk.direction': 'DOWN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.spacing.nodeNodeBetweenLayers': '40',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.spacing.edgeEdge': '10',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      // States in the order the machine declares them (its path first), failures and pauses after.
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
    },
    children,
    edges,
  };
}

/** The laid-out graph as the page's diagram. */
export function diagramLayout(machine: MachineDescription, laidOut: LaidOutGraph, notes: string[]): DiagramLayout {
  const states = new Map(machine.states.map((state) => [state.key, state]));
  return {
    machineId: machine.id,
    version: machine.version,
    initial: machine.initial,
    width: Math.ceil(laidOut.width ?? 0),
    height: Math.ceil(laidOut.height ?? 0),
    notes,
    nodes: (laidOut.children ?? []).map((node) => ({
      id: node.id,
      label: node.id,
      x: node.x ?? 0,
      y: node.y ?? 0,
      width: node.width ?? 0,
      height: node.height ?? 0,
      final: states.get(node.id)?.final ?? false,
      description: states.get(node.id)?.description ?? null,
    })),
    edges: (laidOut.edges ?? []).map((edge) => {
      const label = edge.labels?.[0];
      return {
        id: edge.id,
        source: edge.sources[0]!,
        target: edge.targets[0]!,
        // An edge may come in several sections, one after the other.
        points: (edge.sections ?? []).flatMap((section) =>
          [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(({ x, y }) => ({ x, y })),
        ),
        label: label?.text ?? '',
        labelX: label?.x ?? null,
        labelY: label?.y ?? null,
      };
    }),
  };
}
