import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isSignalFileName, SignalBoxReader } from 'fed/testing';
import { startFixture } from '../helpers/fixture-process.js';
import { isCompleteSignal, signalFederation } from '../helpers/signal-federation.js';

describe('readers never see a partial signal (docs/design/invariants.md #1)', () => {
  it('parses every inbox file while another process sends 300 signals with 50 KB bodies: 0 torn, 0 empty', async () => {
    const fed = await signalFederation(['docs']);
    const inbox = fed.team('docs').inbox;
    const sender = startFixture('send-signals.mjs', [
      '--root',
      fed.root,
      '--to',
      'docs',
      '--count',
      '300',
      '--body-bytes',
      String(50 * 1024),
    ]);
    const exited = sender.done.then(() => true);
    const reader = new SignalBoxReader(inbox, { owner: 'docs', box: 'inbox' });

    // Each file is parsed the moment it shows up in the listing: that is when a file written in place
    // (instead of published complete) would be caught empty or half-written.
    const parsed = new Set<string>();
    let empty = 0;
    let torn = 0;
    let readerInvalid = 0;
    // Polls that found the inbox part-sent: the reader looked while the sender was writing.
    let pollsMidSend = 0;
    let finished: boolean;
    do {
      finished = await Promise.race([exited, sleep(1, false)]);
      for (const name of readdirSync(inbox).filter(isSignalFileName)) {
        if (parsed.has(name)) continue;
        parsed.add(name);
        const text = readFileSync(join(inbox, name), 'utf8');
        if (text.length === 0) empty++;
        else if (!isCompleteSignal(text)) torn++;
      }
      if (parsed.size > 0 && parsed.size < 300) pollsMidSend++;
      readerInvalid += reader.read({ verify: true }).invalid.length;
    } while (!finished);

    const result = await sender.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect({ empty, torn, readerInvalid }).toEqual({ empty: 0, torn: 0, readerInvalid: 0 });
    expect(parsed.size).toBe(300);
    // Hundreds here (a poll a millisecond or so over a send of about a second); a machine many times faster
    // still gives dozens.
    expect(pollsMidSend).toBeGreaterThanOrEqual(30);
    const { signals } = reader.read({ verify: true });
    expect(signals).toHaveLength(300);
    expect(signals.every((s) => Buffer.byteLength(s.message.body) === 50 * 1024)).toBe(true);
    expect(readdirSync(fed.meta.outbox).filter(isSignalFileName)).toHaveLength(300);
  });
});
