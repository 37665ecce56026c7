import { html } from 'htm/preact';

export function NeedsYou(_props: Record<string, unknown>) {
  return html`<section class="view">
    <h1>NeedsYou</h1>
    <p class="muted">Coming next.</p>
  </section>`;
}
