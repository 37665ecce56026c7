import { redactUrl } from '../../core/redact-url.js';
import type { JetStreamBackendConfig } from '../../core/schema/backends/jetstream.js';

/*
 * Only FED_NATS_URL can carry a password or token in a NATS URL (the config file refuses them), and what fed
 * prints — config, locations in messages, errors — ends up in logs and chat: the servers are always named
 * through core/redact-url, as `nats://user:***@host`.
 */

/** Several NATS URLs, redacted, comma-separated as FED_NATS_URL takes them. */
export function redactedServers(servers: readonly string[]): string {
  return servers.map(redactUrl).join(',');
}

/**
 * The backend's config as fed prints it (`fed config show`): the servers redacted. Credentials given by
 * reference (a creds file path, an environment variable's name) are references, not secrets, and stay.
 */
export function redactedBackend(backend: JetStreamBackendConfig): JetStreamBackendConfig {
  return { ...backend, servers: backend.servers.map(redactUrl) };
}
