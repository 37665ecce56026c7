import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isSignalFileName, readRegistry, readSignalBox } from 'fed/testing';
import { acknowledgeAll, openFederation, sendSignal } from 'fed';
import { startFixture } from '../helpers/fixture-process.js';
import { isCompleteSignal, signalFederation } from '../helpers/signal-federation.js';

const KILLS = 30;
const AT_ONCE = 2;

interface Sender {
  child: ChildProcess;
  /** Resolves once the process has printed `sent 0`: it is then inside its send loop. */
  sending: Promise<void>;
  exited: Promise<{ signal: NodeJS.Signals | null; stderr: string }>;
}

function startSender(args: readonly string[]): Sender {
  const { child } = startFixture('send-signals.mjs', args);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (_code, signal) => resolve({ signal, stderr })),
  );
  const sending = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('sent 0')) resolve();
    });
    void exited.then((r) => reject(new Error(`sender exited before its first send: ${r.stderr}`)));
  });
  return { child, sending, exited };
}

describe('crash safety of send (docs/design/invariants.md #1 and #3)', () => {
  it(`leaves no partial or corrupt file in any inbox or outbox when send is SIGKILLed at random moments (${KILLS} kills)`, async () => {
    const fed = await signalFederation(['docs']);
    const docs = fed.team('docs');
    let kills = 0;

    const killOne = async (i: number) => {
      const [from, to] = i % 2 === 0 ? ['meta', 'docs'] : ['docs', 'meta'];
      const sender = startSender([
        '--root',
        fed.root,
        '--from',
        from!,
        '--to',
        to!,
        '--subject',
        `crash ${i % 3}`,
        '--body-bytes',
        String(8_000 + i * 1_000),
      ]);
      try {
        await sender.sending;
        await sleep(Math.random() * 40);
      } finally {
        sender.child.kill('SIGKILL');
      }
      expect((await sender.exited).signal).toBe('SIGKILL');
      kills++;
    };
    for (let batch = 0; batch < KILLS; batch += AT_ONCE) {
      await Promise.all(Array.from({ length: AT_ONCE }, (_, k) => killOne(batch + k)));
    }
    expect(kills).toBe(KILLS);

    const boxes = [
      { dir: fed.meta.inbox, owner: 'meta', box: 'inbox' as const },
      { dir: fed.meta.outbox, owner: 'meta', box: 'outbox' as const },
      { dir: docs.inbox, owner: 'docs', box: 'inbox' as const },
      { dir: docs.outbox, owner: 'docs', box: 'outbox' as const },
    ];
    let total = 0;
    for (const { dir, owner, box } of boxes) {
      // Every visible signal file is complete; a killed writer leaves at most a hidden temp file.
      for (const name of readdirSync(dir)) {
        if (!isSignalFileName(name)) {
          expect(name).toMatch(/^\..*\.tmp$/);
          continue;
        }
        total++;
        expect(isCompleteSignal(readFileSync(join(dir, name), 'utf8')), `${dir}/${name} is complete`).toBe(true);
      }
      expect(readSignalBox(dir, { owner, box }).invalid).toEqual([]);
    }
    expect(total).toBeGreaterThan(KILLS * 2);

    // The outbox copy is written after the inbox copy, so every recorded send reached its recipient.
    const ids = (dir: string, owner: string, box: 'inbox' | 'outbox') =>
      new Set(readSignalBox(dir, { owner, box }).signals.map((s) => s.message.id));
    const delivered = new Set([...ids(fed.meta.inbox, 'meta', 'inbox'), ...ids(docs.inbox, 'docs', 'inbox')]);
    for (const id of [...ids(fed.meta.outbox, 'meta', 'outbox'), ...ids(docs.outbox, 'docs', 'outbox')])
      expect(delivered.has(id)).toBe(true);

    // The federation keeps working: the registry is intact, sends and acks go through.
    expect(readRegistry(fed.root).teams.map((t) => t.domainId)).toEqual(['docs']);
    await sendSignal(openFederation(fed.root), {
      from: 'docs',
      to: 'meta',
      type: 'report',
      subject: 'after the crashes',
    });
    expect((await acknowledgeAll(openFederation(fed.root), 'meta')).invalid).toEqual([]);
  });
});
