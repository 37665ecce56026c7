import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { it } from 'vitest';
import { startNatsServer } from '../helpers/nats-server.js';
it('probe', async () => {
  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  const jsm = await jetstreamManager(nc); const js = jetstream(nc);
  await jsm.streams.add({ name: 'J', subjects: ['j.>'], allow_direct: true });
  await js.publish('j.a.1', 'one'); await js.publish('j.b.1', 'x'); await js.publish('j.a.2', 'two');
  for (const q of [{ last_by_subj: 'j.a.*' }, { last_by_subj: 'j.a.>' }, { next_by_subj: 'j.a.*', seq: 2 }] as any[]) {
    try { const m = await jsm.direct.getMessage('J', q); console.log(JSON.stringify(q), m?.subject, m?.seq); } catch (e) { console.log(JSON.stringify(q), 'ERR', (e as Error).message); }
    try { const m = await jsm.streams.getMessage('J', q); console.log('streams', JSON.stringify(q), m?.subject, m?.seq); } catch (e) { console.log('streams', JSON.stringify(q), 'ERR', (e as Error).message); }
  }
  const info = await jsm.streams.info('J', { subjects_filter: 'j.a.>' } as any); console.log(info.state.subjects);
  await nc.close(); await server.dispose();
});
