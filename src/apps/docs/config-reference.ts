import { z } from 'zod';
import { BACKEND_DOCS, CONFIG_FILE, configSchema } from '../../core/schema/config.js';
import { CONFIG_FIELD_DESCRIPTIONS } from './config-fields.js';
import { cellCode, cellText, generatedNotice, markdownTable } from './markdown.js';

/** A JSON Schema node as `z.toJSONSchema` writes the config schema (the keys this page reads). */
interface SchemaNode {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}

export interface ConfigField {
  path: string;
  type: string;
  required: boolean;
  default: unknown;
}

/**
 * Every field of `federate.config.json`, depth first in the schema's order, read off the zod schema fed
 * validates with (as JSON Schema, input side: what people write). The alternatives of a union (the
 * backend types, the two ways to give credentials) are merged field by field.
 */
export function configFields(): ConfigField[] {
  const root = z.toJSONSchema(configSchema, { io: 'input' }) as SchemaNode;
  return objectFields(root, '');
}

function objectFields(node: SchemaNode, prefix: string): ConfigField[] {
  const merged = new Map<string, { nodes: SchemaNode[]; requiredIn: number }>();
  const alternatives = node.oneOf ?? node.anyOf ?? [node];
  for (const alternative of alternatives) {
    for (const [key, child] of Object.entries(alternative.properties ?? {})) {
      const entry = merged.get(key) ?? { nodes: [], requiredIn: 0 };
      entry.nodes.push(child);
      if (alternative.required?.includes(key)) entry.requiredIn++;
      merged.set(key, entry);
    }
  }
  return [...merged].flatMap(([key, { nodes, requiredIn }]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const first = nodes[0]!;
    const field: ConfigField = {
      path,
      type: [...new Set(nodes.map(typeLabel))].join(' | '),
      required: requiredIn === alternatives.length,
      default: isObject(first) ? undefined : first.default,
    };
    const children = nodes.filter(isObject).flatMap((child) => objectFields(child, path));
    return [field, ...dedupe(children)];
  });
}

/** Fields met in several alternatives (a union inside a union) are listed once. */
function dedupe(fields: ConfigField[]): ConfigField[] {
  const seen = new Set<string>();
  return fields.filter((field) => !seen.has(field.path) && seen.add(field.path));
}

function isObject(node: SchemaNode): boolean {
  return node.type === 'object' || (node.oneOf ?? node.anyOf ?? []).some(isObject);
}

function typeLabel(node: SchemaNode): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (isObject(node)) return 'object';
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) return [...new Set(alternatives.map(typeLabel))].join(' | ');
  if (node.type === 'array') return `${node.items ? typeLabel(node.items) : 'unknown'}[]`;
  if (node.type === 'string') return node.format === 'uri' ? 'string (URL)' : 'string';
  if (node.type === 'number' || node.type === 'integer') return `${node.type}${range(node)}`;
  return node.type ?? 'unknown';
}

function range(node: SchemaNode): string {
  const low =
    node.exclusiveMinimum !== undefined
      ? `> ${node.exclusiveMinimum}`
      : node.minimum !== undefined
        ? `≥ ${node.minimum}`
        : undefined;
  const high = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${node.maximum}` : undefined;
  const bounds = [low, high].filter(Boolean);
  return bounds.length > 0 ? ` (${bounds.join(', ')})` : '';
}

/** The description of every field; a field without one (or a description without a field) is a mistake to fix in config-fields.ts. */
function describedFields(): (ConfigField & { description: string })[] {
  const fields = configFields();
  const missing = fields
    .filter((field) => !Object.hasOwn(CONFIG_FIELD_DESCRIPTIONS, field.path))
    .map((field) => field.path);
  const paths = new Set(fields.map((field) => field.path));
  const stale = Object.keys(CONFIG_FIELD_DESCRIPTIONS).filter((path) => !paths.has(path));
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `src/apps/docs/config-fields.ts (or a backend's docs in src/core/schema/backends/) does not match the config schema: ` +
        [
          missing.length > 0 ? `no description for ${missing.join(', ')}` : '',
          stale.length > 0 ? `no field ${stale.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; '),
    );
  }
  return fields.map((field) => ({ ...field, description: CONFIG_FIELD_DESCRIPTIONS[field.path]! }));
}

/** docs/reference/config.md: a table of every field — path, type, default, description. */
export function renderConfigReference(): string {
  const rows = describedFields().map((field) => [
    cellCode(field.path),
    cellText(field.type) + (field.required ? ', required' : ''),
    field.default === undefined ? '' : cellCode(JSON.stringify(field.default)),
    field.description.replaceAll('|', '\\|'),
  ]);
  return [
    generatedNotice('the config schema (src/core/schema/config.ts)'),
    `# Configuration reference: \`${CONFIG_FILE}\`\n`,
    `The federation's settings, in \`${CONFIG_FILE}\` at the federation root. Every field is optional (a missing file means all defaults); ` +
      'a field marked required is required within its object. `fed config show` validates the file and prints it with the defaults and ' +
      'environment overrides applied; every problem is reported with its path, and unknown keys are warnings that suggest the closest known key.\n',
    'Environment overrides: `FED_TELEMETRY_ENABLED` (`true` or `false`) over `telemetry.enabled`; `OTEL_EXPORTER_OTLP_ENDPOINT` over ' +
      '`telemetry.collector.endpoint`' +
      BACKEND_DOCS.flatMap((backend) => (backend.environment ? [`; ${backend.environment}`] : [])).join('') +
      '.\n',
    markdownTable(['Field', 'Type', 'Default', 'Description'], rows),
  ].join('\n');
}
