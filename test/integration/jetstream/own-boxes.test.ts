import { describe, expect, it } from 'vitest';
import type { JetStreamBackend } from 'fed/testing';
import {
  acknowledgeAll,
  acknowledgeSignal,
  listSignals,
  openFederation,
  sendSignal,
  showSignal,
  watchSignals,
} from 'fed';
import { jetstreamFederations } from '../../helpers/jetstream-federation.js';
import { skipWithoutNatsServer } from '../../helpers/nats-server.js';
import { useNatsServer } from '../../helpers/use-nats-server.js';

const SUITE =
  'a team reads and acknowledges only its own boxes on JetStream (issue 48 item 4), against a real nats-server';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it("as docs, meta's and another team's inboxes, and a signal between two others, are refused; meta's question stays", async () => {
    const made = await jetstreamFederations(server)(['docs', 'other']);
    const fed = openFederation(made.root, { backend: made.backend as JetStreamBackend });
    const question = await sendSignal(fed, { from: 'other', to: 'meta', type: 'question', subject: 'canary' });
    const id = question.message.id;
    const asDocs = { caller: 'docs' };
    const refused = { code: 'TEAM_NOT_CALLER' };
    await expect(acknowledgeAll(fed, 'meta', asDocs)).rejects.toMatchObject(refused);
    await expect(acknowledgeAll(fed, 'other', asDocs)).rejects.toMatchObject(refused);
    await expect(acknowledgeSignal(fed, 'meta', id, asDocs)).rejects.toMatchObject(refused);
    await expect(listSignals(fed, { team: 'meta' }, asDocs)).rejects.toMatchObject(refused);
    await expect(showSignal(fed, id, asDocs)).rejects.toMatchObject(refused);
    await expect(watchSignals(fed, 'meta', asDocs)).rejects.toMatchObject(refused);
    // Its own inbox it reads; meta's question is still waiting, unacknowledged.
    await expect(listSignals(fed, { team: 'docs' }, asDocs)).resolves.toMatchObject({ signals: [] });
    const meta = await listSignals(fed, { team: 'meta', unacknowledged: true });
    expect(meta.signals.map((signal) => signal.message.id)).toContain(id);
  });
});
