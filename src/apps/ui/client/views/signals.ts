import { html } from 'htm/preact';

export function Signals(_props: Record<string, unknown>) {
  return html`<section class="view">
    <h1>Signals</h1>
    <p class="muted">Coming next.</p>
  </section>`;
}
