import type { z } from 'zod';

/**
 * One backend's side of `federate.config.json`, as BACKENDS in core/schema/config.ts lists it: how
 * `backend.type` names it (named here, not read from the schema: a schema may build on first use), its
 * schema (its branch of the `backend` union) and its lines of the config reference.
 */
export interface BackendConfigEntry<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly schema: S;
  readonly docs: BackendDocs;
}

/**
 * What a backend's config is for, by its schema's side, for docs/reference/config.md (src/apps/docs). Plain
 * text rather than `.describe()` on the schema, for the reason src/apps/docs/config-fields.ts gives.
 */
export interface BackendDocs {
  /** How `backend.type` names it, with what else selects it: "`jetstream` (`FED_NATS_URL` selects it too)". */
  type: string;
  /** The environment variables it reads, as one clause of the reference's "Environment overrides" line. */
  environment?: string;
  /** What each of its fields is for, by path (`backend.<field>`). */
  fields: Readonly<Record<string, string>>;
}
