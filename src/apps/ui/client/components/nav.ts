import { html } from 'htm/preact';
import { useLiveStatus } from '../live.js';
import { PAGES, parseRoute, type Route } from '../pages.js';

/** The pages with a link, each marked current while its view is shown. */
const LINKS = PAGES.flatMap(({ nav }) => (nav ? [{ ...nav, view: parseRoute(nav.href, '').view }] : []));

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
