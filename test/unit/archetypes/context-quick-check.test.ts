import { describe, expect, it } from 'vitest';
import { archetypes, COMMON_CONTEXT_KEYS, commonContext, initialPersistedSnapshot } from 'fed/testing';
import { uncoveredKeys, variantsOf } from '../../helpers/quick-check-corpus.js';

const AT = '2026-01-01T00:00:00.000Z';
const seen = { signalId: 's', subject: 'Subject', at: AT };

/** commonContext's fields with every nullable one set, so that what is inside each is tried too. */
const common = (workState: string) => ({
  mission: { signalId: 'm', subject: 'Mission', body: '' },
  pausedFrom: workState,
  failure: { reason: 'why', state: workState },
  lastDirective: seen,
  lastQuestion: { signalId: 'q', subject: 'Which?', at: AT },
  enteredAt: { [workState]: AT },
});

/** Each archetype's context with every field set. */
const FULL: Record<string, (workState: string) => Record<string, unknown>> = {
  deliverable: (w) => ({
    ...common(w),
    sources: ['src'],
    filesRead: 3,
    insights: ['x'],
    document: { path: 'deliverable.md', bytes: 10 },
  }),
  coding: (w) => ({
    ...common(w),
    tasks: ['t'],
    commit: 'abc',
    lastTestRun: { passed: 1, failed: 0 },
    reworks: 1,
    pullRequest: 'https://example.com/pr/1',
    lastReview: { outcome: 'approved', reviewer: 'r', comments: ['c'] },
    approvedCommit: 'abc',
    mergeCommit: 'def',
  }),
  consultant: (w) => ({
    ...common(w),
    filesIndexed: 5,
    current: { ...seen, from: 'meta' },
    queue: [{ signalId: 'q2', subject: 'Next?', at: AT, from: null }],
    lastFeedback: seen,
    answered: 2,
    lastAnswer: { questionId: 'q', reportId: null },
  }),
};

/** Values of the contexts' own kinds, besides every kind of JSON value. */
const OWN_VALUES = ['approved', 'changes-requested', 'preparing', 'complete', 2.5, { passed: 1, failed: 0 }];

describe("the archetypes' quick checks of a lifecycle context accept only what their schema accepts", () => {
  it('knows the keys commonContext gives every context', () => {
    expect(COMMON_CONTEXT_KEYS).toEqual(Object.keys(commonContext(['work'])));
  });

  for (const archetype of archetypes) {
    const full = FULL[archetype.id]!(archetype.workStates[0]!);
    const initial = (initialPersistedSnapshot(archetype.lifecycle, AT) as { context: unknown }).context;
    const variants: unknown[] = [
      full,
      initial,
      { ...full, extra: 1 },
      { ...full, enteredAt: JSON.parse('{"__proto__": "x"}') },
      { ...full, enteredAt: JSON.parse('{"__proto__": 1}') },
      JSON.parse(`{"__proto__": 1, ${JSON.stringify(full).slice(1)}`),
      null,
      [full],
      ...variantsOf(full),
      ...variantsOf(full, OWN_VALUES),
      ...variantsOf(initial),
    ];
    const fits = (v: unknown) => archetype.contextSchema.safeParse(v).success;

    it(`${archetype.id}: the context tried has every field of the schema's, so each is compared`, () => {
      expect(uncoveredKeys(full, archetype.contextSchema)).toEqual([]);
    });

    it(`${archetype.id}: quick ⇒ schema over ${variants.length} variants, valid contexts pass quickly`, () => {
      expect(archetype.isWellFormedContext(full)).toBe(true);
      expect(archetype.isWellFormedContext(initial)).toBe(true);
      const broken = variants.filter((v) => !fits(v));
      expect(broken.length).toBeGreaterThan(100);
      expect(broken.filter((v) => archetype.isWellFormedContext(v))).toEqual([]);
      // Among the valid, only an own `__proto__` key of enteredAt that is no string (the schema skips the key) is
      // left to the schema.
      expect(variants.filter((v) => fits(v) && !archetype.isWellFormedContext(v))).toEqual([variants[4]]);
    });
  }
});
