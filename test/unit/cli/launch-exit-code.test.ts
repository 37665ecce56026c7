import { describe, expect, it } from 'vitest';
import { launchExitCode } from '../../../src/cli/launch-exit-code.js';

describe('the exit code of fed launch and fed run', () => {
  it.each([
    [['complete'], 0],
    [['complete', 'waiting'], 0],
    [[], 0],
    [['complete', 'failed'], 1],
    [['paused', 'failed'], 1],
    [['complete', 'paused'], 3],
    [['waiting', 'paused', 'paused'], 3],
  ] as const)('%j → %i', (outcomes, code) => {
    expect(launchExitCode(outcomes)).toBe(code);
  });
});
