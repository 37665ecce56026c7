import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeControls } from '../../../src/core/terminal-text.js';
import { openFederation, sendSignal } from 'fed';
import { fedInProcess } from '../../helpers/fed-in-process.js';
import { signalFederation } from '../../helpers/signal-federation.js';

/** What must never reach a terminal raw: C0 but newline and tab (a CR only before LF), DEL, C1, bidi overrides. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const RAW = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

/** OSC 52 (writes the operator's clipboard), a title change, a screen clear, BEL, C1 CSI, a bidi override. */
const HOSTILE = '\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;title\u001b\\\u001b[2J\u009b31m\u202eevil\rover';

describe('escapeControls', () => {
  it('shows each control character as its \\u escape and keeps newlines, tabs and CR LF', () => {
    expect(escapeControls('a\u001b[31mb\u0007c\td\ne\r\nf\rg\u007f\u009b\u202e')).toBe(
      'a\\u001b[31mb\\u0007c\td\ne\r\nf\\u000dg\\u007f\\u009b\\u202e',
    );
    expect(escapeControls('plain — ünïcödé 🚀')).toBe('plain — ünïcödé 🚀');
  });

  it('keeps JSON valid JSON that parses to the same value', () => {
    const value = { text: `x${HOSTILE}\u0000y` };
    expect(JSON.parse(escapeControls(JSON.stringify(value, null, 2)))).toEqual(value);
  });
});

describe('what fed prints from signals, registry and agent output', () => {
  it('reaches the terminal with its control characters escaped, and JSON output still round-trips', async () => {
    const fed = await signalFederation(['docs']);
    const run = (...args: string[]) => fedInProcess(args, fed.root);
    // A signal whose fields carry escapes (its subject becomes the team's mission in the registry view).
    await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'directive', subject: `mission ${HOSTILE}`, body: `body ${HOSTILE}` },
      { durable: false },
    );
    // An invalid one whose reason quotes the bad values (the `invalid:` line).
    writeFileSync(
      join(fed.team('docs').inbox, '2026-01-01T000000Z-directive-bad.json'),
      JSON.stringify({
        id: '1b2c1f4e-1111-4222-8333-444455556666',
        timestamp: '2026-01-01T00:00:00Z',
        from: 'meta',
        to: 'docs',
        type: HOSTILE,
        subject: 'bad',
        body: '',
        protocol: 'file-signal-v1',
        [HOSTILE]: 1,
      }),
    );
    expect((await run('actors', 'run', '--once')).code).toBe(0);
    // The agent's own words: a failure reason.
    const failed = await run(
      'event',
      'FAIL',
      '--team',
      'docs',
      '--data',
      JSON.stringify({ reason: `broke ${HOSTILE}` }),
    );
    const outputs = [
      failed,
      await run('signal', 'list', '--team', 'docs'),
      await run('signal', 'list', '--team', 'docs', '--box', 'outbox'),
      await run('team', 'show', 'docs'),
      await run('monitor'),
      await run('log', '--team', 'docs'),
    ];
    for (const { stdout, stderr } of outputs) {
      expect(stdout).not.toMatch(RAW);
      expect(stderr).not.toMatch(RAW);
    }
    expect(outputs.map((o) => o.stdout + o.stderr).join('')).toContain('\\u001b]52;c;');
    const listed = await run('signal', 'list', '--team', 'docs', '--json');
    expect(listed.stdout).not.toMatch(RAW);
    const { signals } = JSON.parse(listed.stdout) as { signals: { message: { body: string } }[] };
    expect(signals.map((s) => s.message.body)).toEqual([`body ${HOSTILE}`]);
  });
});
