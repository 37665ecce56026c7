/**
 * URLs as fed prints or stores them: without the credentials they may carry. A URL given in the environment
 * (FED_NATS_URL, OTEL_EXPORTER_OTLP_ENDPOINT) or the config may hold a password (`scheme://user:pass@host`),
 * a bare token (`scheme://token@host`) or a token in its query (`?token=`, `?access_token=`, `?api_key=`);
 * whatever fed prints — config, messages, warnings, JSON — ends up in logs and chat, and what it stores
 * under `.fed/` is read by every team.
 */
const HIDDEN = '***';

/** Query (or fragment) parameters whose value is a secret, by a part of their name. */
const SECRET_PARAMETER = /token|key|secret|pass|pwd|auth|sig|cred|session/i;

/** `name=value` pairs of a query or fragment whose name says it is a secret: the value hidden. */
function redactParameters(pairs: string): string {
  return pairs.replace(/([?#&;])([^=&#;]*)=([^&#;]*)/g, (pair, separator: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // A malformed escape: judge the name as written.
    }
    return SECRET_PARAMETER.test(decoded) ? `${separator}${name}=${HIDDEN}` : pair;
  });
}

/**
 * One URL without its credentials: the password (or a user without one, which is a token) and the value
 * of every secret query parameter become `***` — `https://fed:***@host/?api_key=***`. A URL without any
 * is returned as it is. A string that does not parse is treated as carefully: anything before an `@`
 * after the scheme is hidden too, since it cannot be told apart from a password.
 */
export function redactUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  // Without a host (`user:pass@host` parses as a scheme `user:` and a path) it is not a URL fed could use.
  if (!parsed?.host) {
    const at = url.lastIndexOf('@');
    if (at < 0) return redactParameters(url);
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
    return `${scheme}${HIDDEN}@${redactParameters(url.slice(at + 1))}`;
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = HIDDEN;
    changed = true;
  } else if (parsed.username) {
    parsed.username = HIDDEN;
    changed = true;
  }
  for (const part of ['search', 'hash'] as const) {
    const redacted = redactParameters(parsed[part]);
    if (redacted !== parsed[part]) {
      parsed[part] = redacted;
      changed = true;
    }
  }
  return changed ? parsed.href : url;
}

/** Several URLs in one comma-separated value (as FED_NATS_URL takes them), each redacted. */
export function redactUrlList(urls: string): string {
  return urls.split(',').map(redactUrl).join(',');
}

/** A text — an error message — with every URL in it redacted (punctuation that ends a sentence is not part of one). */
export function redactUrlsIn(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]*[^\s"'<>().,:;!?]/gi, redactUrl);
}
