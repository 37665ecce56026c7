import { describe, expect, it } from 'vitest';
import { envelopeSchema } from 'fed';
import { isWellFormedEnvelope } from 'fed/testing';
import {
  REPLACEMENTS as CORPUS,
  uncoveredKeys,
  variantsOf,
  withValue as withValueIn,
} from '../../helpers/quick-check-corpus.js';

/** An envelope as `fed actors run` writes it: a journal tail, a held signal and a report owed. */
const envelope = {
  machineId: 'deliverable',
  machineVersion: 1,
  snapshot: { status: 'active', value: 'preparing', historyValue: {}, context: { mission: null }, children: {} },
  seq: 2,
  processed: ['00000000-0000-4000-8000-000000000001'],
  dedupe: 'until-ack',
  held: [{ id: 'a', file: '2026-01-01T000000Z-directive-a.json' }],
  journalTail: [
    {
      seq: 1,
      at: '2026-01-01T00:00:00.000Z',
      event: 'MISSION_ASSIGNED',
      from: 'preparing',
      to: 'preparing',
      source: 'signal',
      signalId: '00000000-0000-4000-8000-000000000001',
    },
    {
      seq: 2,
      at: '2026-01-01T00:00:01+01:00',
      event: 'report',
      from: 'preparing',
      to: 'preparing',
      source: 'event',
      note: '',
    },
  ],
  pendingReports: [{ signalId: '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b', subject: 'Done', body: '' }],
  savedAt: '2026-01-01T00:00:01.000Z',
};

/** The envelope with `value` at `path` (undefined deletes the key). */
const withValue = (path: readonly (string | number)[], value: unknown) => withValueIn(envelope, path, value);

/** What each place is tried with: every kind of JSON value, and the envelope's own values. */
const REPLACEMENTS: unknown[] = [...CORPUS, 'until-ack', 'registry', 'memo', '2026-01-01T00:00:00'];

const variants: unknown[] = [
  envelope,
  withValue(['dedupe'], undefined),
  withValue(['held'], undefined),
  { ...envelope, extra: 1 },
  { ...envelope, journalTail: [{ ...envelope.journalTail[0], extra: 1 }] },
  JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(envelope).slice(1)}`),
  { ...envelope, snapshot: JSON.parse('{"__proto__": {"x": 1}, "value": "preparing"}') },
  { ...envelope, held: [JSON.parse('{"__proto__": 1, "id": "a", "file": "b"}')] },
  { ...envelope, processed: new Array(1) },
  [envelope],
  null,
  'envelope',
  ...variantsOf(envelope, REPLACEMENTS),
];

describe('isWellFormedEnvelope (the quick check of many lifecycles) accepts only what the schema accepts', () => {
  it("the envelope tried has every field of the schema's, so each is compared (a new one fails this)", () => {
    expect(uncoveredKeys(envelope, envelopeSchema)).toEqual([]);
  });

  it(`quick ⇒ schema, with the schema's value, over ${variants.length} variants`, () => {
    for (const variant of variants) {
      if (!isWellFormedEnvelope(variant)) continue;
      const parsed = envelopeSchema.safeParse(variant);
      expect(parsed.success, JSON.stringify(variant)).toBe(true);
      expect(variant).toEqual(parsed.data);
    }
  });

  it('passes the valid envelopes quickly, and is not a stub: it refuses each broken variant', () => {
    const valid = variants.filter((v) => envelopeSchema.safeParse(v).success);
    const broken = variants.filter((v) => !envelopeSchema.safeParse(v).success);
    expect(isWellFormedEnvelope(envelope)).toBe(true);
    expect(broken.length).toBeGreaterThan(100);
    expect(broken.filter((v) => isWellFormedEnvelope(v))).toEqual([]);
    // Only an own `__proto__` key of the snapshot is left to the schema (which drops it) among the valid.
    expect(valid.filter((v) => !isWellFormedEnvelope(v))).toEqual([variants[6]]);
  });
});
