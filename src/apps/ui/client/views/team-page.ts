import { html } from 'htm/preact';

export function TeamPage(_props: Record<string, unknown>) {
  return html`<section class="view">
    <h1>TeamPage</h1>
    <p class="muted">Coming next.</p>
  </section>`;
}
