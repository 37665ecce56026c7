import { html } from 'htm/preact';
import { useLiveStatus } from '../live.js';
import type { Route } from '../router.js';

const LINKS: { href: string; label: string; view: Route['view'] }[] = [
  { href: '/', label: 'Board', view: 'board' },
  { href: '/needs-you', label: 'Needs you', view: 'needs-you' },
  { href: '/signals', label: 'Signals', view: 'signals' },
  { href: '/federation', label: 'Federation', view: 'federation' },
];

const STATUS_TEXT = {
  connecting: 'connecting…',
  connected: 'live',
  reconnecting: 'reconnecting…',
  closed: 'disconnected (reload)',
  stopped: 'live updates stopped (restart fed ui)',
};

export function Nav({ route }: { route: Route }) {
  const status = useLiveStatus();
  return html`<nav class="nav" aria-label="Dashboard">
    <span class="brand">fed</span>
    <ul>
      ${LINKS.map(
        (link) =>
          html`<li>
            <a href=${link.href} aria-current=${route.view === link.view ? 'page' : undefined}>${link.label}</a>
          </li>`,
      )}
    </ul>
    <span class=${`live live-${status}`} role="status" title="Live updates from the federation">
      <span class="dot" aria-hidden="true"></span>${STATUS_TEXT[status]}
    </span>
  </nav>`;
}
