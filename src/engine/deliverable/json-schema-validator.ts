import { createRequire } from 'node:module';
import type { Ajv, AnySchemaObject, ErrorObject, Options } from 'ajv';
import { InvalidInputError } from '../../core/errors.js';
import { parseJsonText } from '../../core/json-text.js';
import { readFileBounded, type BoundedRead } from '../../infra/fs/read-file-bounded.js';
import { jsonPath } from '../../core/schema/problems.js';

/**
 * A user's JSON Schema (config `deliverableSchema`, docs/design/spec.md §2.3), compiled with ajv for the draft it
 * declares in `$schema` (2020-12 — what `fed schema` prints —, 2019-09, else draft-07). Unknown keywords
 * and formats are tolerated rather than fatal: `format` is an annotation here (no format plugin), and a
 * schema written for another tool should still check what it can.
 */
export type JsonSchemaValidator = (value: unknown, at?: readonly PropertyKey[]) => string[];

const OPTIONS: Options = { allErrors: true, strict: false, logger: false, validateFormats: false };

/** ajv is required only when a schema is used: loading it costs every process that imports this module ~0.1 s. */
const require = createRequire(import.meta.url);

function ajvFor(schema: AnySchemaObject): Ajv {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (draft.includes('2020-12'))
    return new (require('ajv/dist/2020') as typeof import('ajv/dist/2020.js')).Ajv2020(OPTIONS);
  if (draft.includes('2019-09'))
    return new (require('ajv/dist/2019') as typeof import('ajv/dist/2019.js')).Ajv2019(OPTIONS);
  return new (require('ajv') as typeof import('ajv')).Ajv(OPTIONS);
}

/** `/sections/0/title` → `[sections, 0, title]`, so problems read like fed's others (`sections[0].title`). */
function pathOf(instancePath: string): PropertyKey[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function describe(error: ErrorObject, at: readonly PropertyKey[]): string {
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${String((error.params as { additionalProperty: string }).additionalProperty)}")`
      : '';
  return `${jsonPath([...at, ...pathOf(error.instancePath)])}: ${error.message ?? error.keyword}${extra}`;
}

/**
 * Load and compile the schema at `file`; `label` names where the path came from (e.g. "deliverableSchema
 * in federate.config.json"), so a bad file is reported with what to fix. The validator returns problems.
 */
export function loadJsonSchemaValidator(file: string, label: string): JsonSchemaValidator {
  let read: BoundedRead;
  try {
    read = readFileBounded(file, { maxBytes: 1024 * 1024 });
  } catch {
    read = { ok: false, problem: 'ENOENT' };
  }
  if (!read.ok)
    throw new InvalidInputError(
      `${label}: cannot read the JSON Schema ${file} (${read.problem}); fix the path or create the file`,
    );
  const text = read.bytes.toString('utf8');
  const json = parseJsonText(text);
  if (!json.ok)
    throw new InvalidInputError(
      `${label}: ${file} is not JSON (line ${json.line}, column ${json.column}: ${json.message})`,
    );
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    throw new InvalidInputError(
      `${label}: ${file} must hold a JSON Schema object, e.g. {"type": "object", "required": ["title"]}`,
    );
  }
  let validate: ReturnType<Ajv['compile']>;
  try {
    const schema = json.value as AnySchemaObject;
    validate = ajvFor(schema).compile(schema);
  } catch (error) {
    throw new InvalidInputError(`${label}: ${file} is not a valid JSON Schema: ${(error as Error).message}`);
  }
  return (value, at = []) => (validate(value) ? [] : (validate.errors ?? []).map((error) => describe(error, at)));
}
