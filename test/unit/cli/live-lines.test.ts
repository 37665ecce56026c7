import { describe, expect, it } from 'vitest';
import { LiveLines } from '../../../src/cli/live-lines.js';
import type { CliIo } from 'fed/testing';

function capture(): { io: CliIo; writes: string[] } {
  const writes: string[] = [];
  return {
    io: {
      stdout: () => undefined,
      terminal: (t) => writes.push(t),
      stderr: () => undefined,
      env: {},
      cwd: '/',
      isTTY: true,
    },
    writes,
  };
}

describe('LiveLines (fed run on a terminal)', () => {
  it('draws one line per key and redraws them in place, each cut to the terminal width', () => {
    const { io, writes } = capture();
    const lines = new LiveLines<{ text: string }>(io, (item) => item.text, 12, 60_000);
    const alpha = { text: 'alpha waiting' };
    lines.update('alpha', alpha);
    lines.update('beta', { text: 'beta waiting' });
    alpha.text = 'alpha done';
    lines.stop();
    expect(writes).toEqual([
      '\r\x1b[2Kalpha waiti\n',
      '\x1b[1A\r\x1b[2Kalpha waiti\n\r\x1b[2Kbeta waitin\n',
      '\x1b[2A\r\x1b[2Kalpha done\n\r\x1b[2Kbeta waitin\n',
    ]);
  });
});
