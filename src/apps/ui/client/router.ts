import { useEffect, useState } from 'preact/hooks';

/**
 * History-API routing over the page routes the server answers with the shell (`/`, `/needs-you`,
 * `/team/<id>`, `/signals`, `/federation`): links push a URL, back and forward pop one, and the app
 * re-renders the route's view. No hash, no reload.
 */
export type Route =
  | { view: 'board' }
  | { view: 'needs-you' }
  | { view: 'team'; team: string }
  | { view: 'signals'; signal: string | null }
  | { view: 'federation' }
  | { view: 'not-found'; path: string };

export function parseRoute(pathname: string, search: string): Route {
  if (pathname === '/' || pathname === '') return { view: 'board' };
  if (pathname === '/needs-you') return { view: 'needs-you' };
  if (pathname === '/signals') return { view: 'signals', signal: new URLSearchParams(search).get('signal') };
  if (pathname === '/federation') return { view: 'federation' };
  const team = /^\/team\/([^/]+)$/.exec(pathname);
  if (team?.[1]) return { view: 'team', team: decodeURIComponent(team[1]) };
  return { view: 'not-found', path: pathname };
}

export const teamHref = (id: string) => `/team/${encodeURIComponent(id)}`;
export const signalHref = (id: string) => `/signals?signal=${encodeURIComponent(id)}`;

const listeners = new Set<() => void>();

export function navigate(href: string): void {
  if (href === location.pathname + location.search) return;
  history.pushState(null, '', href);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.search));
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return route;
}

/**
 * A click on a same-origin link navigates in place; one with a modifier key (new tab, new window) or
 * another button is left to the browser.
 */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.origin !== location.origin) return;
  // A link to a heading of this page (a report's contents) is the browser's to follow.
  if (anchor.hash && anchor.pathname === location.pathname && anchor.search === location.search) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
