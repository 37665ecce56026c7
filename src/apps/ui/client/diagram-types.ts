/**
 * A lifecycle diagram as scripts/ui-diagrams.mjs lays it out at build time (`dist/ui/diagrams/<id>.json`,
 * served as `/assets/diagrams/<id>.json`): boxes and routes in SVG user units, top-left origin.
 */
export interface DiagramNode {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  final: boolean;
  description: string | null;
}

export interface DiagramEdge {
  id: string;
  source: string;
  target: string;
  points: { x: number; y: number }[];
  /** The events that take this transition, comma-separated. */
  label: string;
  labelX: number | null;
  labelY: number | null;
}

export interface DiagramLayout {
  machineId: string;
  version: number;
  initial: string;
  width: number;
  height: number;
  /**
   * Transitions said once instead of drawn from every state (`PAUSE from every state → paused`,
   * `RESUME: paused → the state it was entered from`).
   */
  notes: string[];
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}
