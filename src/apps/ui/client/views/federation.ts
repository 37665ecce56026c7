import { html } from 'htm/preact';

export function FederationPage(_props: Record<string, unknown>) {
  return html`<section class="view">
    <h1>FederationPage</h1>
    <p class="muted">Coming next.</p>
  </section>`;
}
