import { z } from 'zod';
import type { BackendConfigEntry, BackendDocs } from './backend-docs.js';

/** How `backend.type` names this backend. */
export const FILES_BACKEND_TYPE = 'files';

/** The default, embedded backend: files under the federation root (file-signal-v1). */
export const filesBackendSchema = z.strictObject({ type: z.literal(FILES_BACKEND_TYPE) });
export type FilesBackendConfig = z.output<typeof filesBackendSchema>;

export const filesBackendDocs: BackendDocs = { type: '`files` (the default)', fields: {} };

/** Its entry in BACKENDS (core/schema/config.ts). */
export const filesBackend = {
  type: FILES_BACKEND_TYPE,
  schema: filesBackendSchema,
  docs: filesBackendDocs,
} as const satisfies BackendConfigEntry;
