import { html } from 'htm/preact';
import { Nav } from './components/nav.js';
import { useRoute, type Route } from './router.js';
import { Board } from './views/board.js';
import { FederationPage } from './views/federation.js';
import { NeedsYou } from './views/needs-you.js';
import { Signals } from './views/signals.js';
import { Steer } from './views/steer.js';
import { TeamPage } from './views/team-page.js';

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'board':
      return html`<${Board} />`;
    case 'needs-you':
      return html`<${NeedsYou} />`;
    case 'team':
      return html`<${TeamPage} key=${route.team} team=${route.team} />`;
    case 'signals':
      return html`<${Signals} signal=${route.signal} />`;
    case 'federation':
      return html`<${FederationPage} />`;
    case 'steer':
      return html`<${Steer} />`;
    case 'not-found':
      return html`<section class="view">
        <h1>Not found</h1>
        <p>No page at ${route.path}.</p>
      </section>`;
  }
}

export function App() {
  const route = useRoute();
  return html`<${Nav} route=${route} />
    <main class="main"><${View} route=${route} /></main>`;
}
