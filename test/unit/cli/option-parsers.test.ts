import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { positiveInteger } from '../../../src/cli/option-parsers.js';

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
