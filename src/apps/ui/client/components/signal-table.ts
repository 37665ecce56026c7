import { html } from 'htm/preact';
import type { SignalRow } from '../../api-types.js';
import { formatRelative } from '../format.js';
import { signalHref, teamHref } from '../pages.js';
import { navigate } from '../router.js';
import { StateBadge } from './state-badge.js';

/** Signals as rows, each with its delivery state; a row opens the signal's thread. */
export function SignalTable({
  signals,
  selected,
  empty,
}: {
  signals: readonly SignalRow[];
  selected?: string | null;
  empty: string;
}) {
  if (signals.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<table class="signals-table">
    <thead>
      <tr>
        <th>Sent</th>
        <th>Type</th>
        <th>From</th>
        <th>To</th>
        <th>Subject</th>
        <th>Delivery</th>
      </tr>
    </thead>
    <tbody>
      ${signals.map(
        (signal) =>
          html`<tr
            key=${signal.id}
            class=${`clickable${signal.id === selected ? ' selected' : ''}`}
            data-signal=${signal.id}
            onClick=${(event: MouseEvent) => {
              if (!(event.target as Element).closest('a')) navigate(signalHref(signal.id));
            }}
          >
            <td title=${signal.sentAt}>${formatRelative(signal.sentAt)}</td>
            <td>${signal.type}</td>
            <td>${party(signal.from)}</td>
            <td>${party(signal.to)}</td>
            <td>
              <a href=${signalHref(signal.id)}>${signal.subject}</a>
              ${signal.replyTo && html` <span class="muted" title=${`replies to ${signal.replyTo}`}>↩</span>`}
            </td>
            <td><${StateBadge} state=${signal.state} /></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A team links to its page; meta (the federation's coordinator) is plain text. */
function party(id: string) {
  return id === 'meta' ? html`<span class="muted">meta</span>` : html`<a href=${teamHref(id)}>${id}</a>`;
}
