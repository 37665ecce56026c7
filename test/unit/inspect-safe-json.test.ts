import { describe, expect, test } from 'vitest';
import { safeJsonLine, toSafeJson } from '../../src/infra/inspect/safe-json.js';

describe('toSafeJson', () => {
  test('keeps JSON values as they are', () => {
    const value = { a: 1, b: 'x', c: [true, null, { d: 2.5 }] };
    expect(toSafeJson(value)).toEqual(value);
  });

  test('gives non-JSON values a readable stand-in', () => {
    function handler() {}
    const converted = toSafeJson({
      big: 12n,
      fn: handler,
      arrow: [() => 1][0],
      sym: Symbol('tag'),
      nan: Number.NaN,
      inf: -Infinity,
      missing: undefined,
      list: [undefined, 1],
      map: new Map<unknown, unknown>([[{ k: 1 }, 'v']]),
      set: new Set([1, 2]),
      error: new TypeError('boom'),
      date: new Date('2025-01-01T00:00:00.000Z'),
    });
    expect(converted).toEqual({
      big: '12n',
      fn: '[Function handler]',
      arrow: '[Function anonymous]',
      sym: 'Symbol(tag)',
      nan: 'NaN',
      inf: '-Infinity',
      list: [null, 1],
      map: [[{ k: 1 }, 'v']],
      set: [1, 2],
      error: { name: 'TypeError', message: 'boom' },
      date: '2025-01-01T00:00:00.000Z',
    });
  });

  test('marks cycles but keeps an object shared by two branches', () => {
    const shared = { n: 1 };
    const node: Record<string, unknown> = { left: shared, right: shared };
    node.self = node;
    expect(toSafeJson(node)).toEqual({ left: { n: 1 }, right: { n: 1 }, self: '[Circular]' });
  });

  test('cuts off very deep values and survives a throwing toJSON', () => {
    const deep = { a: { b: { c: { d: 1 } } } };
    expect(toSafeJson(deep, 2)).toEqual({ a: { b: '[Truncated]' } });
    expect(
      toSafeJson({
        x: {
          toJSON: () => {
            throw new Error('no');
          },
        },
      }),
    ).toEqual({ x: '[Unserializable: no]' });
  });

  test('safeJsonLine is one parseable line, for anything', () => {
    const cyclic: Record<string, unknown> = { id: 7n };
    cyclic.me = cyclic;
    const line = safeJsonLine(cyclic);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ id: '7n', me: '[Circular]' });
    expect(JSON.parse(safeJsonLine(undefined))).toBeNull();
  });
});
