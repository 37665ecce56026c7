import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The dashboard's guard (issue 29, "Safe by default"): a random token per server, exchanged once for an
 * HttpOnly SameSite=Strict cookie; `Host` and `Origin` checked against the bound address so that a page on
 * another site (DNS rebinding, a cross-site form) can neither read nor steer the federation.
 */
/**
 * The session cookie's name, per port: cookies are scoped by host name, not port, so a second `fed ui` on
 * the same machine would otherwise overwrite the first's cookie and sign its tabs out.
 */
export function cookieName(port: number): string {
  return `fed_ui_${port}`;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every response carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** 32 random bytes, base64url: the token `fed ui` prints in its URL. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison: how long a wrong guess takes says nothing of how close it was. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The `Host` values a request may name: the bound address and port, and `localhost:<port>` on loopback. */
export function allowedHosts(host: string, port: number): Set<string> {
  const named = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const hosts = new Set([named]);
  if (isLoopback(host)) hosts.add(`localhost:${port}`);
  return hosts;
}

/** An address that means every address of the machine (0.0.0.0, ::): no single Host names it. */
export function isWildcard(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === '0.0.0.0' || /^[0:]*::?[0:]*$/.test(bare);
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function cookieToken(request: IncomingMessage, cookie: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookie) return value.join('=');
  }
  return undefined;
}

function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** Why a request is turned away, as an HTTP status and a short text; undefined when it may proceed. */
export interface Refusal {
  status: 401 | 403 | 405 | 421;
  text: string;
}

export interface Guard {
  token: string;
  hosts: Set<string>;
  /** The session cookie's name (cookieName of the bound port). */
  cookie: string;
}

const OPEN_THE_URL = 'open the URL `fed ui` printed (it carries the token)';

/**
 * Check a request before anything is read for it: the method, the Host, the Origin, then the token (the
 * cookie, or the `Authorization: Bearer` header of a script). A POST with the cookie also needs a matching
 * Origin: a browser always sends one with a POST, so a missing one is not a browser of this page.
 */
export function checkRequest(
  request: IncomingMessage,
  guard: Guard,
  options: { exchange?: boolean } = {},
): Refusal | undefined {
  const method = request.method ?? 'GET';
  if (!['GET', 'HEAD', 'POST'].includes(method)) return { status: 405, text: `${method} is not served here\n` };
  const host = request.headers.host;
  if (host === undefined || !guard.hosts.has(host.toLowerCase()))
    return { status: 421, text: `this server answers to ${[...guard.hosts].join(' or ')}, not ${host ?? 'no Host'}\n` };
  const origin = request.headers.origin;
  const originOk = origin !== undefined && guard.hosts.has(originHost(origin) ?? '');
  if (origin !== undefined && !originOk) return { status: 403, text: `requests from ${origin} are refused\n` };
  if (options.exchange) return undefined;
  const bearer = bearerToken(request);
  if (bearer !== undefined) {
    return tokenMatches(bearer, guard.token) ? undefined : { status: 401, text: `wrong token: ${OPEN_THE_URL}\n` };
  }
  if (!tokenMatches(cookieToken(request, guard.cookie), guard.token))
    return { status: 401, text: `not signed in: ${OPEN_THE_URL}\n` };
  if (method === 'POST' && !originOk)
    return { status: 403, text: 'a POST needs the Origin of this page (or an Authorization: Bearer header)\n' };
  return undefined;
}

/** `http://host:port` → `host:port`; undefined for anything else (another scheme, a path, `null`). */
function originHost(origin: string): string | undefined {
  const match = /^http:\/\/([^/]+)$/i.exec(origin);
  return match?.[1]?.toLowerCase();
}

export function sessionCookie(guard: Guard): string {
  return `${guard.cookie}=${guard.token}; HttpOnly; SameSite=Strict; Path=/`;
}
