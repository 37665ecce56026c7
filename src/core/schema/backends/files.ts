import { z } from 'zod';
import type { BackendDocs } from './backend-docs.js';

/** The default, embedded backend: files under the federation root (file-signal-v1). */
export const filesBackendSchema = z.strictObject({ type: z.literal('files') });
export type FilesBackendConfig = z.output<typeof filesBackendSchema>;

export const filesBackendDocs: BackendDocs = { type: '`files` (the default)', fields: {} };
