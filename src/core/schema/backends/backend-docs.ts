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
