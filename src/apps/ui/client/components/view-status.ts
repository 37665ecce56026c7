import { html } from 'htm/preact';

/** Loading, or why a view could not be read (kept on screen above the last data that was). */
export function ViewStatus({ error }: { error: string | null }) {
  return error
    ? html`<p class="view-error" role="alert">Could not load: ${error}</p>`
    : html`<p class="loading" aria-busy="true">Loading…</p>`;
}
