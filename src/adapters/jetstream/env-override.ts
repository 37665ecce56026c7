import { redactUrlList } from '../../core/redact-url.js';
import {
  JETSTREAM_BACKEND_TYPE,
  jetstreamBackendSchema,
  parsesAsNatsUrl,
} from '../../core/schema/backends/jetstream.js';
import { describeValue } from '../../core/schema/problems.js';
import type { EnvOverride } from '../../infra/config/env-overrides.js';

/** Selects the JetStream backend and replaces its servers: one NATS URL or several, comma-separated. */
export const ENV_NATS_URL = 'FED_NATS_URL';

const NATS_ENV_URL = /^(nats|tls):\/\/\S+$/;

/** `FED_NATS_URL` (spec §9): the JetStream backend, on these servers, whatever the config file says. */
export const natsUrlOverride: EnvOverride = (config, env) => {
  const natsUrl = env[ENV_NATS_URL];
  if (natsUrl === undefined) return { config };
  // Unlike the shared config file, the environment may carry a user and password in the URL.
  const servers = natsUrl
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (servers.length === 0 || servers.some((url) => !NATS_ENV_URL.test(url) || !parsesAsNatsUrl(url)))
    return {
      problems: [
        {
          path: ENV_NATS_URL,
          // Named without the passwords and tokens it may carry: the message ends up in logs.
          message: `expected NATS URLs such as nats://127.0.0.1:4222 (comma-separated for several; a port up to 65535), got ${describeValue(redactUrlList(natsUrl))}`,
        },
      ],
    };
  const jetstream =
    config.backend?.type === JETSTREAM_BACKEND_TYPE
      ? config.backend
      : jetstreamBackendSchema.parse({ type: JETSTREAM_BACKEND_TYPE });
  return { config: { ...config, backend: { ...jetstream, servers } } };
};
