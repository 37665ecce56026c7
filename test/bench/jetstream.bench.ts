/**
 * The JetStream send path beside its ceilings: durable send and acknowledge through the adapter against a
 * raw JetStream loop with the same client (publish with a message id; KV create), and the file backend's
 * durable send for comparison. Rounds alternate ceiling and adapter, so load on a shared machine hits both
 * alike. The apply path is in jetstream-apply.bench.ts. Needs nats-server on PATH.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { closeOpenBackends, initFederation, onboardTeam } from '../../src/index.js';
import { createJetStreamBackend } from '../../src/adapters/jetstream/open-jetstream-backend.js';
import { jetstreamBackendSchema } from '../../src/core/schema/backends/jetstream.js';
import { openFileBackend } from '../../src/adapters/file/open-file-backend.js';
import { type SignalParty } from '../../src/core/resolve-party.js';
import { natsServerMissing, startNatsServer } from '../helpers/nats-server.js';
import { fmt, report, summarize } from './harness.js';
import { openFederation } from '../../src/engine/context.js';
import { message } from './jetstream-federations.js';

const PER_ROUND = 300;
const ROUNDS = 5;

async function perSecond(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await op(i);
  return count / ((performance.now() - started) / 1000);
}

export default async function jetstreamBench(): Promise<void> {
  if (natsServerMissing) {
    process.stdout.write(`  skipped: nats-server not on PATH (${natsServerMissing})\n`);
    return;
  }
  const server = await startNatsServer();
  const backend = createJetStreamBackend({
    root: '/tmp',
    federationName: 'bench',
    backend: jetstreamBackendSchema.parse({ type: 'jetstream', servers: [server.url] }),
  });
  const fileRoot = mkdtempSync('/tmp/fed-bench-jetstream-files-');
  try {
    const { session, acks } = await backend.streams();
    initFederation(fileRoot, {}, {});
    const fileTeam = await onboardTeam(openFederation(fileRoot), { domain: 'docs' });
    const files = openFileBackend(fileRoot);
    const meta: SignalParty = { id: 'meta', entry: undefined };
    const docs: SignalParty = { id: 'docs', entry: undefined };
    const rawSend: number[] = [];
    const send: number[] = [];
    const fileSend: number[] = [];
    const rawAck: number[] = [];
    const ack: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rawSend.push(
        await perSecond(PER_ROUND, () =>
          session.js.publish(session.names.inboxSubject('raw', 'meta'), JSON.stringify(message('raw')), {
            msgID: randomUUID(),
          }),
        ),
      );
      send.push(await perSecond(PER_ROUND, () => backend.signals.send(message('docs'), { from: meta, to: docs })));
      fileSend.push(
        await perSecond(PER_ROUND, () =>
          files.signals.send(message('docs'), { from: meta, to: { id: 'docs', entry: fileTeam } }),
        ),
      );
      rawAck.push(
        await perSecond(PER_ROUND, () =>
          acks.create(`raw.meta.${randomUUID()}`, '{"acknowledged":true,"acknowledged_at":"2026-01-01T00:00:00.000Z"}'),
        ),
      );
      const inbox = backend.signals.inbox(docs);
      const pending = (await inbox.pending()).signals;
      ack.push(await perSecond(pending.length, (i) => inbox.acknowledge([pending[i]!])));
    }
    const line = (name: string, values: number[]) => {
      const s = summarize(values);
      return { name, value: s.median, spread: `${fmt(s.min)}–${fmt(s.max)}` };
    };
    const raw = line('raw JetStream publish loop', rawSend);
    const adapter = line(`durable send through the JetStream adapter, ${ROUNDS}×${PER_ROUND}`, send);
    report({
      name: `${adapter.name} (spread ${adapter.spread})`,
      value: adapter.value,
      unit: 'signals/s',
      ceiling: { name: raw.name, value: raw.value },
      goal: '≥ 50 % of the raw loop',
      met: adapter.value >= 0.5 * raw.value,
    });
    const file = line('durable send through the file backend', fileSend);
    report({
      name: `${file.name} (spread ${file.spread})`,
      value: file.value,
      unit: 'signals/s',
      ceiling: { name: raw.name, value: raw.value },
    });
    const rawAcks = line('raw KV create loop', rawAck);
    const adapterAcks = line('acknowledge through the JetStream adapter, one by one', ack);
    report({
      name: `${adapterAcks.name} (spread ${adapterAcks.spread})`,
      value: adapterAcks.value,
      unit: 'acks/s',
      ceiling: { name: rawAcks.name, value: rawAcks.value },
    });
  } finally {
    await backend.close();
    await closeOpenBackends();
    await server.dispose();
    rmSync(fileRoot, { recursive: true, force: true });
  }
}
