import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { duration, positiveInteger, REPEAT_INTERVAL, timerSeconds } from '../../../src/cli/option-parsers.js';

describe('positiveInteger: the one whole-number option parser (--teams, --parallel, --count)', () => {
  const parse = positiveInteger('signals');

  it('reads decimal digits', () => {
    expect(parse('1')).toBe(1);
    expect(parse('250')).toBe(250);
  });

  it.each(['0', '-1', '2.5', '2.0', '1e3', '0x10', ' 3', '', 'three', '9007199254740993'])(
    'refuses %j as bad input naming the unit',
    (value) => {
      expect(() => parse(value)).toThrow(InvalidArgumentError);
      expect(() => parse(value)).toThrow('expected a whole number of signals > 0');
    },
  );
});

describe('timerSeconds: seconds fed waits on a timer (--watch, --interval)', () => {
  const parse = timerSeconds(REPEAT_INTERVAL);

  it('reads seconds from 0.1 to 24 days, the bounds included', () => {
    expect(parse('10')).toBe(10);
    expect(parse('0.1')).toBe(0.1);
    expect(parse('0.2')).toBe(0.2);
    expect(parse('2073600')).toBe(2_073_600);
  });

  it.each(['0', '-1', 'soon', ''])('refuses %j as not a number of seconds > 0', (value) => {
    expect(() => parse(value)).toThrow(InvalidArgumentError);
    expect(() => parse(value)).toThrow('expected a number of seconds > 0');
  });

  it.each(['3000000', '2073600.5', '1e10'])('refuses %j seconds, more than Node’s timers hold', (value) => {
    expect(() => parse(value)).toThrow(InvalidArgumentError);
    expect(() => parse(value)).toThrow(
      `${value} seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter interval`,
    );
  });

  it.each(['0.0001', '0.09'])('refuses %j seconds, a busy loop', (value) => {
    expect(() => parse(value)).toThrow(
      `${value} seconds is too short (at least 0.1 seconds: fed would repeat the cycle almost without pause); give a longer interval`,
    );
  });
});

describe('duration: a duration with a unit, bounded when it is a timer (--monitor-every, --grace)', () => {
  it('without bounds, any positive duration (an age such as --older-than)', () => {
    expect(duration()('365d')).toBe(365 * 86_400_000);
    expect(() => duration()('30')).toThrow('expected a duration > 0 with a unit such as 30m, 2h, 7d');
  });

  it('as a timer: at most 24 days, at least its minimum', () => {
    const parse = duration({ what: 'interval', min: { ms: 1000, why: 'a busy loop' } });
    expect(parse('1m')).toBe(60_000);
    expect(parse('1s')).toBe(1000);
    expect(parse('24d')).toBe(24 * 86_400_000);
    expect(() => parse('30d')).toThrow('30d is longer than fed can wait (at most 24 days); give a shorter interval');
    expect(() => parse('1ms')).toThrow('1ms is too short (at least 1 second: a busy loop); give a longer interval');
    expect(() => parse('soon')).toThrow('expected a duration > 0 with a unit such as 30m, 2h, 7d');
  });
});
