import { z } from 'zod';
import { ConfigValidationError, type ValidationProblem } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { redactUrl } from '../../core/redact-url.js';
import { describeValue } from '../../core/schema/problems.js';

/** Spec §9: environment variables that override the file. */
export const ENV_TELEMETRY_ENABLED = 'FED_TELEMETRY_ENABLED';
export const ENV_OTLP_ENDPOINT = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/**
 * An override a backend reads from the environment (its adapter's `envOverride`, src/adapters): the config
 * with the variables it reads applied, or the problems with their values. It may select its backend.
 */
export type EnvOverride = (
  config: FederationConfig,
  env: NodeJS.ProcessEnv,
) => { config: FederationConfig } | { problems: ValidationProblem[] };

/**
 * The environment's overrides of the file: telemetry's, then each of `backendOverrides` in turn. Every
 * problem is collected into one ConfigValidationError.
 */
export function applyEnvOverrides(
  config: FederationConfig,
  env: NodeJS.ProcessEnv,
  backendOverrides: readonly EnvOverride[] = [],
): FederationConfig {
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
        message: `expected a URL such as http://localhost:4318, got ${describeValue(redactUrl(endpoint))}`,
      });
  }

  let overridden: FederationConfig = { ...config, telemetry };
  for (const override of backendOverrides) {
    const result = override(overridden, env);
    if ('problems' in result) problems.push(...result.problems);
    else overridden = result.config;
  }

  if (problems.length) throw new ConfigValidationError('environment', problems);
  return overridden;
}
