import { describe, expect, it } from 'vitest';
import { InvalidInputError } from 'fed';
import { JSON_SCHEMA_NAMES, jsonSchemaFor } from 'fed/testing';
import {
  isWellFormedAck,
  isWellFormedSignal,
  signalAckSchema,
  signalMessageSchema,
  SIGNAL_PROTOCOL,
  SIGNAL_TYPES,
} from '../../../src/core/schema/signal.js';

const valid = {
  id: '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b',
  timestamp: '2026-01-31T12:00:00.000Z',
  from: 'meta',
  to: 'docs',
  type: 'directive',
  subject: 'Write the architecture document',
  body: 'Cover the signal transport.',
  protocol: 'file-signal-v1',
};

describe('SignalMessage schema (docs/design/spec.md §2.1)', () => {
  it('accepts exactly the spec fields, with the two optional acknowledgment fields', () => {
    expect(signalMessageSchema.parse(valid)).toEqual(valid);
    const acked = { ...valid, acknowledged: true, acknowledged_at: '2026-01-31T12:01:00Z' };
    expect(signalMessageSchema.parse(acked)).toEqual(acked);
    expect(SIGNAL_TYPES).toEqual(['directive', 'question', 'report', 'alert']);
    expect(SIGNAL_PROTOCOL).toBe('file-signal-v1');
  });

  it.each([
    ['an extra key', { ...valid, priority: 'high' }, 'priority'],
    ['a wrong protocol', { ...valid, protocol: 'file-signal-v2' }, 'protocol'],
    ['an unknown type', { ...valid, type: 'memo' }, 'type'],
    ['an id that is not a UUID', { ...valid, id: 'signal-1' }, 'id'],
    ['a timestamp that is not ISO 8601', { ...valid, timestamp: '31/01/2026 12:00' }, 'timestamp'],
    ['an empty subject', { ...valid, subject: '' }, 'subject'],
    ['a whitespace-only subject', { ...valid, subject: ' \t\n' }, 'subject'],
    ['a body that is not a string', { ...valid, body: 42 }, 'body'],
    ['a recipient that is not a team id', { ...valid, to: '../etc' }, 'to'],
    ['acknowledged that is not a boolean', { ...valid, acknowledged: 'yes' }, 'acknowledged'],
  ])('rejects %s', (_what, value, field) => {
    const parsed = signalMessageSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    const paths = parsed.error!.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys : issue.path.map(String),
    );
    expect(paths).toContain(field);
  });

  it.each(['id', 'timestamp', 'from', 'to', 'type', 'subject', 'body', 'protocol'])('requires %s', (key) => {
    const { [key]: _dropped, ...rest } = valid as Record<string, unknown>;
    expect(signalMessageSchema.safeParse(rest).success).toBe(false);
  });
});

describe('acknowledgment schema (docs/design/spec.md §2.2)', () => {
  it('is {acknowledged, acknowledged_at} and nothing else', () => {
    expect(signalAckSchema.parse({ acknowledged: true, acknowledged_at: '2026-01-31T12:00:00Z' })).toBeTruthy();
    expect(signalAckSchema.safeParse({ acknowledged: true }).success).toBe(false);
    expect(signalAckSchema.safeParse({ acknowledged: true, acknowledged_at: 'yesterday' }).success).toBe(false);
    expect(
      signalAckSchema.safeParse({ acknowledged: true, acknowledged_at: '2026-01-31T12:00:00Z', by: 'docs' }).success,
    ).toBe(false);
  });
});

describe('exported JSON Schemas', () => {
  it('describe the signal file: required spec fields, fixed protocol, type enum, no other keys', () => {
    const schema = jsonSchemaFor('signal') as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { const?: string; enum?: string[]; format?: string }>;
    };
    expect(schema.required.sort()).toEqual(['body', 'from', 'id', 'protocol', 'subject', 'timestamp', 'to', 'type']);
    expect(Object.keys(schema.properties).sort()).toEqual([
      'acknowledged',
      'acknowledged_at',
      'body',
      'from',
      'id',
      'protocol',
      'subject',
      'timestamp',
      'to',
      'type',
    ]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.protocol?.const).toBe('file-signal-v1');
    expect(schema.properties.type?.enum).toEqual(['directive', 'question', 'report', 'alert']);
    expect(schema.properties.id?.format).toBe('uuid');
    expect(schema.properties.timestamp?.format).toBe('date-time');
  });

  it('describe the ack file, and refuse an unknown name with the available ones', () => {
    const schema = jsonSchemaFor('ack') as { required: string[]; additionalProperties: boolean };
    expect(schema.required.sort()).toEqual(['acknowledged', 'acknowledged_at']);
    expect(schema.additionalProperties).toBe(false);
    expect(JSON_SCHEMA_NAMES).toEqual(['signal', 'ack', 'learning-entry', 'deliverable-summary']);
    expect(() => jsonSchemaFor('toString')).toThrow(InvalidInputError);
    expect(() => jsonSchemaFor('registry')).toThrow(/available: signal, ack, learning-entry, deliverable-summary/);
  });
});

describe('isWellFormedSignal (the quick check of large reads) accepts only what the schema accepts', () => {
  const signal = { ...valid, to: 'docs-team', timestamp: '2026-01-31T12:04:05.123Z' };
  const variants: Record<string, unknown>[] = [
    signal,
    { ...signal, acknowledged: true, acknowledged_at: '2026-01-31T12:05:00+01:00' },
    { ...signal, acknowledged: 'yes' },
    { ...signal, acknowledged_at: 'soon' },
    { ...signal, id: 'not-a-uuid' },
    { ...signal, id: '3F2B8A34-7C1E-4D5A-9B0E-2F6C8D4E1A7B' },
    { ...signal, id: '3f2b8a34-7c1e-9d5a-9b0e-2f6c8d4e1a7b' },
    { ...signal, timestamp: '2026-02-30T00:00:00Z' },
    { ...signal, timestamp: '2026-01-31 12:04:05' },
    { ...signal, timestamp: 1 },
    { ...signal, from: 'Meta' },
    { ...signal, to: 'a'.repeat(65) },
    { ...signal, to: 'docs--team' },
    { ...signal, type: 'memo' },
    { ...signal, subject: '   ' },
    { ...signal, subject: '' },
    { ...signal, body: 3 },
    { ...signal, protocol: 'file-signal-v2' },
    { ...signal, extra: 1 },
    JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(signal).slice(1)}`) as Record<string, unknown>,
    Object.fromEntries(Object.entries(signal).filter(([key]) => key !== 'body')),
  ];

  it.each(variants.map((v, i) => [i, v] as const))(
    'variant %i: quick ⇒ schema, and the valid ones pass quickly',
    (_, variant) => {
      const quick = isWellFormedSignal(variant);
      const schema = signalMessageSchema.safeParse(variant).success;
      if (quick) expect(schema).toBe(true);
      if (variant === signal) expect(quick).toBe(true);
    },
  );

  it('the quick check is not a stub: it refuses each broken variant', () => {
    expect(variants.filter((v) => !signalMessageSchema.safeParse(v).success).every((v) => !isWellFormedSignal(v))).toBe(
      true,
    );
  });
});

describe('isWellFormedAck accepts only what the ack schema accepts', () => {
  const ack = { acknowledged: true, acknowledged_at: '2026-01-31T12:01:00Z' };
  const variants: unknown[] = [
    ack,
    { ...ack, acknowledged: false },
    { ...ack, acknowledged: 'true' },
    { ...ack, acknowledged_at: 'now' },
    { acknowledged: true },
    { ...ack, extra: 1 },
    [ack],
    null,
  ];
  it.each(variants.map((v, i) => [i, v] as const))('variant %i', (_, variant) => {
    const schema = signalAckSchema.safeParse(variant).success;
    expect(isWellFormedAck(variant)).toBe(schema);
  });
});
