import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Every option and config field that ends up as a timer's delay is refused before anything runs when
 * Node's timers cannot hold it (over 2^31-1 ms they fire after 1 ms: a cycle repeated without pause) or
 * when it is so short the cycle would be a busy loop: exit 2, naming the option or field and the fix.
 */
async function federation(): Promise<string> {
  const root = tempDir();
  expect((await fedInProcess(['init'], root)).code).toBe(0);
  return root;
}

describe('timer options: refused before anything runs (exit 2)', () => {
  it('fed monitor --watch: too long and too short', async () => {
    const root = await federation();
    const long = await fedInProcess(['monitor', '--watch', '3000000'], root);
    expect(long.code).toBe(2);
    expect(long.stdout).toBe('');
    expect(long.stderr).toContain("option '--watch [seconds]' argument '3000000' is invalid");
    expect(long.stderr).toContain(
      '3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter interval',
    );
    const short = await fedInProcess(['monitor', '--watch', '0.0001'], root);
    expect(short.code).toBe(2);
    expect(short.stdout).toBe('');
    expect(short.stderr).toContain("option '--watch [seconds]' argument '0.0001' is invalid");
    expect(short.stderr).toContain(
      '0.0001 seconds is too short (at least 0.1 seconds: fed would repeat the cycle almost without pause); give a longer interval',
    );
  });

  it.each([
    [['serve', '--monitor-every', '30d'], '30d is longer than fed can wait (at most 24 days); give a shorter interval'],
    [
      ['serve', '--monitor-every', '1ms'],
      '1ms is too short (at least 1 second: the server would run the monitoring cycle almost without pause); give a longer interval',
    ],
    [['serve', '--grace', '25d'], '25d is longer than fed can wait (at most 24 days); give a shorter grace period'],
    [
      ['chat', 'bridge', '--file', '--interval', '3000000'],
      '3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter interval',
    ],
    [
      ['chat', 'bridge', '--file', '--interval', '0.001'],
      '0.001 seconds is too short (at least 0.1 seconds: fed would repeat the cycle almost without pause); give a longer interval',
    ],
  ])('fed %j', async (args, message) => {
    const root = await federation();
    const result = await fedInProcess(args, root);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`option '${args.at(-2)}`);
    expect(result.stderr).toContain(message);
  });

  it('a config field that is a timer: the command is refused, the field named', async () => {
    const root = await federation();
    const path = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      path,
      JSON.stringify({ ...config, serve: { heartbeat: '30d' }, notify: { command: 'x', timeoutSeconds: 3e6 } }),
    );
    const result = await fedInProcess(['monitor'], root);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'notify.timeoutSeconds: 3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter timeout',
    );
    expect(result.stderr).toContain('serve.heartbeat: 30d is longer than fed can wait (at most 8 days');
  });
});
