import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { diagramSvg } from '../diagram-svg.js';
import type { DiagramLayout } from '../../api-types.js';

/** Layouts never change while the page lives: each is fetched once. */
const layouts = new Map<string, Promise<DiagramLayout>>();

function layoutOf(machineId: string): Promise<DiagramLayout> {
  let layout = layouts.get(machineId);
  if (!layout) {
    layout = api.diagram(machineId);
    layout.catch(() => layouts.delete(machineId));
    layouts.set(machineId, layout);
  }
  return layout;
}

export function LifecycleDiagram({ machineId, current }: { machineId: string; current: string | null }) {
  const [layout, setLayout] = useState<DiagramLayout | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    layoutOf(machineId).then(
      (loaded) => live && setLayout(loaded),
      (failure: unknown) => live && setError(String(failure)),
    );
    return () => {
      live = false;
    };
  }, [machineId]);
  if (error) return html`<p class="view-error">No diagram for ${machineId}: ${error}</p>`;
  if (!layout) return html`<p class="loading">Loading the ${machineId} diagram…</p>`;
  return html`<figure class="diagram-figure">
    ${diagramSvg(layout, current)}
    ${
      layout.notes.length > 0 &&
      html`<figcaption>
        <ul class="diagram-notes">
          ${layout.notes.map((note) => html`<li>${note}</li>`)}
        </ul>
      </figcaption>`
    }
  </figure>`;
}
