import { z } from 'zod';
import { builtOnFirstUse, nonEmptyString } from '../common.js';
import { describeUrlValue, describeValue } from '../problems.js';
import type { BackendConfigEntry, BackendDocs } from './backend-docs.js';

/** NATS client URLs as the Node transport takes them: `nats://host[:port]` or `tls://host[:port]`. */
const NATS_URL_PATTERN = /^(nats|tls):\/\/[^\s/]+$/;
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/**
 * Whether the NATS client can parse `url`'s host and port: it reads them as an http URL's (nats-core
 * servers.ts), which refuses a port above 65535 or a space in the host ("Invalid URL" when connecting).
 */
export function parsesAsNatsUrl(url: string): boolean {
  return URL.canParse(url.replace(/^[a-z]+:\/\//, 'http://'));
}

/** How `backend.type` names this backend. */
export const JETSTREAM_BACKEND_TYPE = 'jetstream';

/**
 * The JetStream backend: teams on several machines share signals, registry and lifecycle through NATS.
 * Built on first use: a file federation's commands never parse it.
 */
export const jetstreamBackendSchema = builtOnFirstUse(() =>
  z.strictObject({
    type: z.literal(JETSTREAM_BACKEND_TYPE),
    servers: z
      .array(natsServerUrlSchema(), {
        error: (issue) => `expected an array of NATS URLs, got ${describeValue(issue.input)}`,
      })
      .min(1, { error: 'expected at least one server URL' })
      .default([DEFAULT_NATS_URL]),
    credentials: natsCredentialsSchema().optional(),
    tls: natsTlsSchema().optional(),
    /** Copies of every stream and KV bucket; 3 on a 3-node cluster survives losing one node (and power loss of one). */
    replicas: z
      .number({ error: (issue) => `expected a number of replicas, got ${describeValue(issue.input)}` })
      .int({ error: 'expected a whole number of replicas' })
      .min(1, { error: 'expected 1 to 5 replicas' })
      .max(5, { error: 'expected 1 to 5 replicas' })
      .default(1),
  }),
);
export type JetStreamBackendConfig = z.output<typeof jetstreamBackendSchema>;

/**
 * A NATS server URL in `federate.config.json`. Credentials are only ever given by reference
 * (`credentials`), so a URL carrying a user or password is refused here — the config file is shared.
 */
function natsServerUrlSchema() {
  return nonEmptyString
    .refine((url) => NATS_URL_PATTERN.test(url) && parsesAsNatsUrl(url), {
      error: (issue) =>
        `expected a NATS URL such as ${DEFAULT_NATS_URL} (nats:// or tls://, a host and an optional port up to 65535), got ${describeUrlValue(issue.input)}`,
    })
    .refine((url) => !url.includes('@'), {
      error:
        'a server URL must not carry a user or password; give credentials by reference in backend.credentials (a creds file or an environment variable)',
    });
}

/** NATS credentials, never inline: a `.creds` file (path, relative to the federation root) or an environment variable holding its content. */
function natsCredentialsSchema() {
  return z.union(
    [
      z.strictObject({ file: nonEmptyString }),
      z.strictObject({
        env: nonEmptyString.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
          error: (issue) => `expected an environment variable name, got ${describeValue(issue.input)}`,
        }),
      }),
    ],
    {
      error: (issue) =>
        `expected {"file": "<path to a .creds file>"} or {"env": "<variable holding the creds>"}, got ${describeValue(issue.input)}`,
    },
  );
}

/** TLS options passed through to the NATS client (files relative to the federation root). */
function natsTlsSchema() {
  return z.strictObject({
    caFile: nonEmptyString.optional(),
    certFile: nonEmptyString.optional(),
    keyFile: nonEmptyString.optional(),
    /** Only for servers configured with `handshake_first`. */
    handshakeFirst: z
      .boolean({ error: (issue) => `expected true or false, got ${describeValue(issue.input)}` })
      .optional(),
  });
}

/** The JetStream backend's lines of docs/reference/config.md. */
export const jetstreamBackendDocs: BackendDocs = {
  type: '`jetstream` (`FED_NATS_URL` selects it too)',
  environment:
    '`FED_NATS_URL` (NATS URLs, comma-separated) selects the JetStream backend and replaces `backend.servers`',
  fields: {
    'backend.servers':
      'NATS URLs (`nats://` or `tls://`); never with a user or password. `FED_NATS_URL` (comma-separated) replaces them.',
    'backend.credentials': 'NATS credentials by reference, never inline: `{"file": …}` or `{"env": …}`.',
    'backend.credentials.file': 'A `.creds` file, relative to the federation root.',
    'backend.credentials.env': 'An environment variable holding the `.creds` content.',
    'backend.tls': 'TLS options passed through to the NATS client (files relative to the federation root).',
    'backend.tls.caFile': 'The CA certificate file.',
    'backend.tls.certFile': 'The client certificate file.',
    'backend.tls.keyFile': "The client certificate's key file.",
    'backend.tls.handshakeFirst': 'Only for servers configured with `handshake_first`.',
    'backend.replicas': 'Copies of every stream and KV bucket; 3 on a 3-node cluster survives losing a node.',
  },
};

/** Its entry in BACKENDS (core/schema/config.ts). */
export const jetstreamBackend = {
  type: JETSTREAM_BACKEND_TYPE,
  schema: jetstreamBackendSchema,
  docs: jetstreamBackendDocs,
} as const satisfies BackendConfigEntry;
