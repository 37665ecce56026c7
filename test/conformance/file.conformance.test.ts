import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initFederation, onboardTeam, openFederation, type RegistryEntry } from 'fed';
import { openFileBackend, publishFileNoClobber, quarantineDirectory, workspacePaths } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';
import type { ConformanceFactory } from './conformance-federation.js';
import { describeChangeFeed } from './change-feed.suite.js';
import { describeBoundedApply } from './bounded-apply.suite.js';
import { describeRunningActor } from './running-actor.suite.js';
import { describeDeliveryFacts } from './delivery-facts.suite.js';
import { describeExactlyOnceApply } from './exactly-once.suite.js';
import { describeLifecycleStore } from './lifecycle-store.suite.js';
import { describeRegistryStore } from './registry-store.suite.js';
import { describeSignalTransport } from './signal-transport.suite.js';

/** file-signal-v1 in a temp dir: a federation made by fed init and fed team onboard. */
const fileFederation: ConformanceFactory = async (domains) => {
  const root = tempDir('fed-conformance-');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  const teams: Record<string, RegistryEntry> = {};
  for (const domain of domains) teams[domain] = await onboardTeam(openFederation(root), { domain }, { durable: false });
  const workspaceOf = (entry: RegistryEntry | undefined) => entry?.location ?? root;
  return {
    adapter: 'file',
    root,
    backend: openFileBackend(root),
    meta: { id: 'meta', entry: undefined },
    teams,
    plantInvalid: async (party, content) =>
      publishFileNoClobber(
        workspacePaths(workspaceOf(party.entry)).inbox,
        '2026-01-01T000000Z-report-broken.json',
        content,
      ),
    quarantined: async (party) => {
      const dir = quarantineDirectory(workspaceOf(party.entry));
      return readdirSync(dir)
        .filter((name) => !name.includes('.reason'))
        .map((name) => readFileSync(join(dir, name), 'utf8'));
    },
  };
};

describeSignalTransport('file-signal-v1', fileFederation);
describeRegistryStore('file-signal-v1', fileFederation);
describeLifecycleStore('file-signal-v1', fileFederation);
describeExactlyOnceApply('file-signal-v1', fileFederation);
describeBoundedApply('file-signal-v1', fileFederation);
describeRunningActor('file-signal-v1', fileFederation);
describeDeliveryFacts('file-signal-v1', fileFederation);
describeChangeFeed('file-signal-v1', () => undefined);
