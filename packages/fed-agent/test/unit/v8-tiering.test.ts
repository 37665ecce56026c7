import { describe, expect, it } from 'vitest';
import { chosenTiering, tieringFlags } from 'fed/v8-tiering';

describe("fed's V8 tiering (fed-agent's, the launcher's) by V8 line", () => {
  it('gives each checked line the flags its V8 has, and a line not checked none', () => {
    // Node 20's V8: one interrupt budget for every tier.
    expect(tieringFlags('11.3.244.8-node.38')).toEqual(['--interrupt-budget=1081344']);
    // Node 21 to 26: TurboFan's own invocation count, Maglev off.
    for (const v8 of ['11.8.172.17-node.20', '12.4.254.21-node.57', '13.6.233.17-node.53', '14.6.202.34-node.34'])
      expect(tieringFlags(v8)).toEqual(['--invocation-count-for-turbofan=48000', '--no-maglev']);
    for (const v8 of ['11.2.214.9', '15.0.1', '', 'not a version']) expect(tieringFlags(v8)).toEqual([]);
  });

  it('is off when asked, and refuses any other ask', () => {
    const node26 = '14.6.202.34-node.34';
    expect(chosenTiering({}, node26)).toEqual({
      name: 'tuned',
      flags: ['--invocation-count-for-turbofan=48000', '--no-maglev'],
    });
    expect(chosenTiering({ FED_V8_TIERING: '' }, node26).name).toBe('tuned');
    expect(chosenTiering({ FED_V8_TIERING: 'off' }, node26)).toEqual({ name: 'v8-defaults', flags: [] });
    expect(chosenTiering({}, '15.0.1')).toEqual({ name: 'v8-defaults', flags: [] });
    expect(() => chosenTiering({ FED_V8_TIERING: 'on' }, node26)).toThrow(
      'FED_V8_TIERING=on: expected "off" (V8\'s own tiering) or nothing (fed\'s); unset it or set it to off',
    );
  });
});
