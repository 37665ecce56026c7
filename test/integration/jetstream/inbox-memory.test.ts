import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JetStreamBackend } from 'fed/testing';
import { openFederation, sendSignal } from 'fed';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE = 'what a JetStream inbox holds while a consumer runs (issue #31, row 4), against a real nats-server';

/** The inbox's caches, by size: what it holds per signal read. */
function held(inbox: object): Record<string, number> {
  const maps = inbox as Record<'signals' | 'acks' | 'storedAt', Map<unknown, unknown>>;
  return { signals: maps.signals.size, acks: maps.acks.size, storedAt: maps.storedAt.size };
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('holds only the pending signals, however many were read and acknowledged; a whole read still shows all', async () => {
    const made = await jetstreamFederations(server)(['docs']);
    const backend = made.backend as JetStreamBackend;
    const fed = openFederation(made.root, { backend });
    const registry = await backend.registry.read();
    const inbox = backend.signals.inbox({ id: 'docs', entry: made.teams.docs });
    const send = () =>
      sendSignal(fed, { to: 'docs', type: 'question', subject: `Q ${randomUUID()}`, body: 'x' }, { registry });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 10; i++) await send();
      const { signals } = await inbox.pending();
      expect(signals).toHaveLength(10);
      expect((await inbox.acknowledge(signals)).acknowledged).toHaveLength(10);
    }
    await send();
    expect((await inbox.pending()).signals).toHaveLength(1);
    // 51 signals read, 50 acknowledged: the 50 are dropped at the read after their acks; their acks stay.
    expect(held(inbox)).toEqual({ signals: 1, acks: 50, storedAt: 1 });
    const all = await inbox.list();
    expect(all.signals).toHaveLength(51);
    expect(all.signals.filter((s) => s.message.acknowledged)).toHaveLength(50);
    expect((await inbox.pending()).signals).toHaveLength(1);

    // A copy of an acknowledged signal stored after it was dropped (a retried send past the server's
    // duplicate window) is acknowledged by id: it is not pending, so a consumer never applies it twice.
    const {
      acknowledged: _acknowledged,
      acknowledged_at: _at,
      ...copy
    } = all.signals.find((s) => s.message.acknowledged)!.message;
    const { session } = await backend.streams();
    await session.js.publish(session.names.inboxSubject('docs', copy.from), JSON.stringify(copy), {
      msgID: randomUUID(),
    });
    const pending = (await inbox.pending()).signals.map((s) => s.message.id);
    expect(pending).toHaveLength(1);
    expect(pending).not.toContain(copy.id);
    expect((await inbox.list()).signals.filter((s) => s.message.id === copy.id)).toHaveLength(2);
  });
});
