/** What the JetStream benches share: a signal to publish, and federations opened as fed's commands open them. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FederationBackend, initFederation, onboardTeam, openFederation, type SignalMessage } from 'fed';
import { emptyRegistry, openFileBackend, SIGNAL_PROTOCOL } from 'fed/testing';
import type { NatsServer } from '../helpers/nats-server.js';

export const message = (to: string): SignalMessage => ({
  id: randomUUID(),
  timestamp: new Date().toISOString(),
  from: 'meta',
  to,
  type: 'report',
  subject: 'bench',
  body: 'x'.repeat(200),
  protocol: SIGNAL_PROTOCOL,
});

const roots: string[] = [];
let federations = 0;

/** A JetStream federation with team docs, its workspace in a temp root, opened as fed's commands open it. */
export async function jetstreamFederation(server: NatsServer): Promise<{ root: string; backend: FederationBackend }> {
  const root = mkdtempSync('/tmp/fed-bench-jetstream-apply-');
  roots.push(root);
  writeFileSync(
    join(root, 'federate.config.json'),
    JSON.stringify({
      federationName: `apply${process.pid}_${++federations}`,
      backend: { type: 'jetstream', servers: [server.url] },
    }),
  );
  const backend = openFederation(root).backend;
  await backend.registry.create(emptyRegistry());
  await onboardTeam(openFederation(root), { domain: 'docs' });
  return { root, backend };
}

/** A file federation with team docs. */
export async function fileFederation(): Promise<{ root: string; backend: FederationBackend }> {
  const root = mkdtempSync('/tmp/fed-bench-jetstream-files-apply-');
  roots.push(root);
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' });
  return { root, backend: openFileBackend(root) };
}

/** Removes every federation made by `jetstreamFederation` and `fileFederation`. */
export function removeBenchFederations(): void {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}
