import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './pages.js';

/**
 * History-API routing over the pages the server answers with the shell (pages.ts): links push a URL,
 * back and forward pop one, and the app re-renders the route's view. No hash, no reload.
 */
export type { Route };

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
