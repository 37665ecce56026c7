import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';

const HIDDEN = '***';

/**
 * A NATS URL as fed may print it: a password (`nats://user:pass@host`) or a bare token (`nats://token@host`)
 * is replaced by `***`, so `nats://user:***@host`. Only FED_NATS_URL can carry them (the config file refuses
 * them), and what fed prints — config, locations in messages, errors — ends up in logs and chat.
 */
export function redactServerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL fed could connect to anyway; still never print what could be a userinfo part.
    return url.includes('@') ? `${HIDDEN}@${url.slice(url.lastIndexOf('@') + 1)}` : url;
  }
  if (parsed.password) parsed.password = HIDDEN;
  else if (parsed.username) parsed.username = HIDDEN;
  else return url;
  return parsed.href;
}

/** Several NATS URLs, redacted, comma-separated as FED_NATS_URL takes them. */
export function redactedServers(servers: readonly string[]): string {
  return servers.map(redactServerUrl).join(',');
}

/**
 * The backend's config as fed prints it (`fed config show`): the servers redacted. Credentials given by
 * reference (a creds file path, an environment variable's name) are references, not secrets, and stay.
 */
export function redactedBackend(backend: JetStreamBackendConfig): JetStreamBackendConfig {
  return { ...backend, servers: backend.servers.map(redactServerUrl) };
}
