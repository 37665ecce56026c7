/**
 * The dashboard's pages, one entry each: the page reads this list to route a URL to its view and to
 * draw its navigation (router.ts, components/nav.ts), and the server (server/routes.ts) to answer the
 * shell at each page's path. Adding a view is its module in views/, its route and entry here, and its
 * component in app.ts. DOM-free, imports nothing: both the page's bundle and the server load it.
 */

/** Where the page is, as a view and what it shows. */
export type Route =
  | { view: 'board' }
  | { view: 'needs-you' }
  | { view: 'team'; team: string }
  | { view: 'signals'; signal: string | null }
  | { view: 'federation' }
  | { view: 'steer' }
  | { view: 'not-found'; path: string };

export interface Page {
  /** The paths of the page. */
  path: RegExp;
  /** Its route, from the match of `path` and the query. */
  route(match: RegExpExecArray, query: URLSearchParams): Route;
  /** Its link in the navigation, for a page reached without an argument. */
  nav?: { href: string; label: string };
}

export const PAGES: readonly Page[] = [
  { path: /^\/?$/, route: () => ({ view: 'board' }), nav: { href: '/', label: 'Board' } },
  { path: /^\/needs-you$/, route: () => ({ view: 'needs-you' }), nav: { href: '/needs-you', label: 'Needs you' } },
  { path: /^\/team\/([^/]+)$/, route: (match) => ({ view: 'team', team: decodeURIComponent(match[1]!) }) },
  {
    path: /^\/signals$/,
    route: (_match, query) => ({ view: 'signals', signal: query.get('signal') }),
    nav: { href: '/signals', label: 'Signals' },
  },
  { path: /^\/federation$/, route: () => ({ view: 'federation' }), nav: { href: '/federation', label: 'Federation' } },
  { path: /^\/steer$/, route: () => ({ view: 'steer' }), nav: { href: '/steer', label: 'Steer' } },
];

/** The links to the pages that take an argument. */
export const teamHref = (id: string) => `/team/${encodeURIComponent(id)}`;
export const signalHref = (id: string) => `/signals?signal=${encodeURIComponent(id)}`;

/** The page at `pathname`, or undefined: the server answers the shell only there. */
export function pageAt(pathname: string): Page | undefined {
  return PAGES.find((page) => page.path.test(pathname));
}

/** The route of a URL's path and query (`not-found` when no page is there). */
export function parseRoute(pathname: string, search: string): Route {
  for (const page of PAGES) {
    const match = page.path.exec(pathname);
    if (match) return page.route(match, new URLSearchParams(search));
  }
  return { view: 'not-found', path: pathname };
}
