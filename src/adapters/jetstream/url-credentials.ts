import { InvalidInputError } from '../../core/errors.js';

export interface UrlCredentials {
  /** The server URLs without a user, password or token. */
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
}

/**
 * FED_NATS_URL may carry a user and password (`nats://user:pass@host`) or a token (`nats://token@host`),
 * but the NATS client ignores them in a URL and connects without: they are taken out of the URLs here and
 * handed to the client as its options. One connection has one identity, so URLs carrying different ones
 * are refused.
 */
export function urlCredentials(urls: readonly string[]): UrlCredentials {
  const servers: string[] = [];
  const identities = new Map<string, Omit<UrlCredentials, 'servers'>>();
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      servers.push(url);
      continue;
    }
    if (!parsed.username && !parsed.password) {
      servers.push(url);
      continue;
    }
    const user = decodeURIComponent(parsed.username);
    const identity = parsed.password ? { user, pass: decodeURIComponent(parsed.password) } : { token: user };
    identities.set(JSON.stringify(identity), identity);
    parsed.username = '';
    parsed.password = '';
    servers.push(parsed.href);
  }
  if (identities.size > 1) {
    throw new InvalidInputError(
      'the NATS URLs in FED_NATS_URL carry different users, passwords or tokens; one connection has one identity: give every URL the same, or only the first',
    );
  }
  return { servers, ...identities.values().next().value };
}
