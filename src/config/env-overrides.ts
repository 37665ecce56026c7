import { z } from 'zod';
import { ConfigValidationError, type ValidationProblem } from '../errors.js';
import type { FederationConfig } from '../schema/config.js';
import { describeValue } from '../schema/problems.js';

/** Spec §9: environment variables that override the file. */
export const ENV_TELEMETRY_ENABLED = 'FED_TELEMETRY_ENABLED';
export const ENV_OTLP_ENDPOINT = 'OTEL_EXPORTER_OTLP_ENDPOINT';

export function applyEnvOverrides(config: FederationConfig, env: NodeJS.ProcessEnv): FederationConfig {
  const problems: ValidationProblem[] = [];
  const telemetry = { ...config.telemetry, collector: { ...config.telemetry.collector } };

  const enabled = env[ENV_TELEMETRY_ENABLED];
  if (enabled !== undefined) {
    if (enabled === 'true' || enabled === 'false') telemetry.enabled = enabled === 'true';
    else problems.push({ path: ENV_TELEMETRY_ENABLED, message: `expected "true" or "false", got ${describeValue(enabled)}` });
  }

  const endpoint = env[ENV_OTLP_ENDPOINT];
  if (endpoint !== undefined) {
    if (z.url().safeParse(endpoint).success) telemetry.collector.endpoint = endpoint;
    else problems.push({ path: ENV_OTLP_ENDPOINT, message: `expected a URL such as http://localhost:4318, got ${describeValue(endpoint)}` });
  }

  if (problems.length) throw new ConfigValidationError('environment', problems);
  return { ...config, telemetry };
}
