import { z } from 'zod';
import { ConfigValidationError, type ValidationProblem } from '../../core/errors.js';
import { jetstreamBackendSchema, type FederationConfig } from '../../core/schema/config.js';
import { describeValue } from '../../core/schema/problems.js';

/** Spec §9: environment variables that override the file. */
export const ENV_TELEMETRY_ENABLED = 'FED_TELEMETRY_ENABLED';
export const ENV_OTLP_ENDPOINT = 'OTEL_EXPORTER_OTLP_ENDPOINT';
/** Selects the JetStream backend and replaces its servers: one NATS URL or several, comma-separated. */
export const ENV_NATS_URL = 'FED_NATS_URL';

const NATS_ENV_URL = /^(nats|tls):\/\/\S+$/;

export function applyEnvOverrides(config: FederationConfig, env: NodeJS.ProcessEnv): FederationConfig {
  const problems: ValidationProblem[] = [];
  const telemetry = { ...config.telemetry, collector: { ...config.telemetry.collector } };

  const enabled = env[ENV_TELEMETRY_ENABLED];
  if (enabled !== undefined) {
    if (enabled === 'true' || enabled === 'false') telemetry.enabled = enabled === 'true';
    else
      problems.push({
        path: ENV_TELEMETRY_ENABLED,
        message: `expected "true" or "false", got ${describeValue(enabled)}`,
      });
  }

  const endpoint = env[ENV_OTLP_ENDPOINT];
  if (endpoint !== undefined) {
    if (z.url().safeParse(endpoint).success) telemetry.collector.endpoint = endpoint;
    else
      problems.push({
        path: ENV_OTLP_ENDPOINT,
        message: `expected a URL such as http://localhost:4318, got ${describeValue(endpoint)}`,
      });
  }

  let backend = config.backend;
  const natsUrl = env[ENV_NATS_URL];
  if (natsUrl !== undefined) {
    // Unlike the shared config file, the environment may carry a user and password in the URL.
    const servers = natsUrl
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean);
    const bad = servers.filter((url) => !NATS_ENV_URL.test(url));
    if (servers.length === 0 || bad.length) {
      problems.push({
        path: ENV_NATS_URL,
        message: `expected NATS URLs such as nats://127.0.0.1:4222 (comma-separated for several), got ${describeValue(natsUrl)}`,
      });
    } else {
      const jetstream =
        config.backend?.type === 'jetstream' ? config.backend : jetstreamBackendSchema.parse({ type: 'jetstream' });
      backend = { ...jetstream, servers };
    }
  }

  if (problems.length) throw new ConfigValidationError('environment', problems);
  return { ...config, telemetry, ...(backend ? { backend } : {}) };
}
