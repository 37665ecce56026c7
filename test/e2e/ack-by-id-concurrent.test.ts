import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signalFileName, toJsonText } from 'fed/testing';
import { foreignMessage as message, inboxWrittenByAnotherTool } from '../helpers/foreign-inbox.js';
import { runFed } from '../helpers/fed-cli.js';

/**
 * `fed signal ack <id>` of signals another tool wrote (no sent fact names their files), two built commands
 * at once: each finds its signal through the inbox's id index while the other writes acks and moves the
 * index's claim, and a copy or a signal dropped in between is still found.
 */

const SIGNALS = 300;

const ack = (root: string, i: number) => runFed(['--root', root, 'signal', 'ack', message(i).id, '--team', 'docs']);
const ackedNames = (inbox: string) => readdirSync(inbox).filter((name) => name.endsWith('.json.ack'));

describe('two fed signal ack <id> at once in an inbox another tool writes', () => {
  it('each acknowledges its signal; a copy and a new signal dropped meanwhile are found after', async () => {
    const { root, inbox, state } = await inboxWrittenByAnotherTool(SIGNALS);
    // Built by the first ack: the index then claims to cover the inbox.
    expect((await ack(root, 0)).code).toBe(0);
    expect(existsSync(join(state, 'inbox-ids', 'covers.json'))).toBe(true);

    const [one, two] = await Promise.all([ack(root, 10), ack(root, 20)]);
    expect([one.code, two.code, one.stderr, two.stderr]).toEqual([0, 0, '', '']);
    // The same id twice at once: one ack file, both commands succeed.
    const [three, four] = await Promise.all([ack(root, 30), ack(root, 30)]);
    expect([three.code, four.code]).toEqual([0, 0]);
    expect(ackedNames(inbox).sort()).toEqual([0, 10, 20, 30].map((i) => `${signalFileName(message(i))}.ack`).sort());

    // Another tool drops a second copy of an indexed id and a new signal while two acks run.
    const copy = '2026-02-01T000000Z-report-copy.json';
    const [five, six] = await Promise.all([
      ack(root, 40),
      ack(root, 50),
      Promise.resolve().then(() => {
        writeFileSync(join(inbox, copy), toJsonText(message(60)));
        writeFileSync(join(inbox, signalFileName(message(SIGNALS))), toJsonText(message(SIGNALS)));
      }),
    ]);
    expect([five!.code, six!.code]).toEqual([0, 0]);
    expect((await ack(root, 60)).code).toBe(0);
    expect((await ack(root, SIGNALS)).code).toBe(0);
    expect(existsSync(join(inbox, `${signalFileName(message(60))}.ack`))).toBe(true);
    expect(existsSync(join(inbox, `${copy}.ack`))).toBe(true);
    expect(existsSync(join(inbox, `${signalFileName(message(SIGNALS))}.ack`))).toBe(true);
    expect(ackedNames(inbox)).toHaveLength(9);
  });
});
